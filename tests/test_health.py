"""`GET /health` through Django's test client, in whichever profile the suite runs."""

from __future__ import annotations

import socket

import pytest
from django.core.cache import cache
from django.db import connection

from foundation.tasks import HEARTBEAT_CACHE_KEY, heartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed_port():
    """A local port that refuses connections: bound, so nobody else takes it, never listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def broker_folders(tmp_path, settings):
    """Point the app at a fresh filesystem broker; returns its folders by option name."""
    folders = {
        "data_folder_in": tmp_path / "queue",
        "data_folder_out": tmp_path / "queue",
        "processed_folder": tmp_path / "processed",
        "control_folder": tmp_path / "control",
    }
    for folder in folders.values():
        folder.mkdir(exist_ok=True)
    settings.CELERY_BROKER_URL = "filesystem://localhost//"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {k: str(v) for k, v in folders.items()}
    return folders


def test_health_answers_200_with_profile_database_broker_and_version(client, settings):
    response = client.get("/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert body["profile"] == settings.CONTINUITY_PROFILE
    assert body["version"] == settings.VERSION
    assert body["database"] == {"ok": True, "vendor": connection.vendor}
    expected_transport = "filesystem" if settings.CONTINUITY_PROFILE == "lite" else "redis"
    assert body["broker"] == {"ok": True, "transport": expected_transport}
    assert response["Cache-Control"] == "no-store"


def test_health_profile_matches_the_database_vendor(client):
    body = client.get("/health").json()

    expected = {"lite": "sqlite", "team": "postgresql"}[body["profile"]]
    assert body["database"]["vendor"] == expected


def test_health_is_503_naming_the_broker_when_redis_does_not_answer(client, settings, closed_port):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port}/0"

    response = client.get("/health")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unhealthy"
    assert body["failing"] == ["broker"]
    assert body["broker"]["ok"] is False
    assert body["broker"]["transport"] == "redis"
    assert body["broker"]["error"] == "ConnectionError"
    assert body["database"]["ok"] is True


def test_health_never_shows_the_broker_password(client, settings, closed_port):
    settings.CELERY_BROKER_URL = f"redis://:hunter2secret@127.0.0.1:{closed_port}/0"

    response = client.get("/health")

    assert response.status_code == 503
    assert b"hunter2secret" not in response.content


def test_health_is_200_on_a_working_filesystem_broker(client, broker_folders):
    response = client.get("/health")

    assert response.status_code == 200
    assert response.json()["broker"] == {"ok": True, "transport": "filesystem"}


def test_health_is_503_naming_the_broker_folder_that_is_missing(client, broker_folders):
    broker_folders["processed_folder"].rmdir()

    response = client.get("/health")

    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["broker"]
    assert body["broker"]["error"] == "processed_folder is missing"


def test_health_is_503_when_a_broker_folder_is_a_file(client, broker_folders):
    broker_folders["control_folder"].rmdir()
    broker_folders["control_folder"].write_text("not a folder")

    response = client.get("/health")

    assert response.status_code == 503
    assert response.json()["broker"]["error"] == "control_folder is not a folder"


def test_health_reports_when_the_worker_last_ran_the_heartbeat(client):
    cache.delete(HEARTBEAT_CACHE_KEY)
    assert client.get("/health").json()["worker"] == {"last_heartbeat": None}

    ran_at = heartbeat()

    body = client.get("/health").json()
    assert body["worker"] == {"last_heartbeat": ran_at}
    assert body["status"] == "ok"  # informational: a missing heartbeat never fails health
    cache.delete(HEARTBEAT_CACHE_KEY)


def test_heartbeat_is_scheduled_by_beat(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["heartbeat"]

    assert entry["task"] == heartbeat.name
    assert entry["schedule"] == settings.CONTINUITY_HEARTBEAT_SECONDS


def test_health_only_answers_get(client):
    assert client.post("/health").status_code == 405
