"""The watchdog through /health and `manage.py doctor`: output judged, not only liveness."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from foundation.maintenance import watchdog
from foundation.maintenance.watchdog import WorkProbe
from foundation.models import MaintenanceRun
from foundation.tasks import HEARTBEAT_CACHE_KEY, retention_cleanup
from tests.workers.helpers import idempotency_records

pytestmark = pytest.mark.django_db

RETENTION = "continuity.retention_cleanup"


@pytest.fixture(autouse=True)
def no_heartbeat():
    cache.delete(HEARTBEAT_CACHE_KEY)
    yield
    cache.delete(HEARTBEAT_CACHE_KEY)


def ago(**delta):
    return timezone.now() - timedelta(**delta)


def test_health_shows_each_jobs_last_success_and_what_it_produced(client, owner):
    idempotency_records(owner, 4, age=timedelta(days=2))
    retention_cleanup.delay()

    body = client.get("/health").json()

    job = body["watchdog"]["jobs"][RETENTION]
    assert body["status"] == "ok" and job["ok"]
    assert job["last_success"] is not None and job["last_success_age_seconds"] < 60
    assert job["produced"]["removed"] == 4
    assert job["produced"]["rules.idempotency_records.removed"] == 4
    assert body["watchdog"]["jobs"]["memories.compaction"]["last_success"] is None


def test_a_job_whose_last_success_is_older_than_three_intervals_degrades_health(client, settings):
    settings.CONTINUITY_RETENTION_INTERVAL_SECONDS = 60
    MaintenanceRun.objects.create(task=RETENTION, status="succeeded", started_at=ago(seconds=200),
                                  finished_at=ago(seconds=190))  # fmt: skip

    response = client.get("/health")

    body = response.json()
    assert response.status_code == 200  # the web instance itself can serve
    assert body["status"] == "degraded"
    assert body["watchdog"]["jobs"][RETENTION]["ok"] is False
    assert any(
        "last success" in problem and RETENTION in problem
        for problem in body["watchdog"]["problems"]
    )


def test_a_job_that_never_succeeded_for_three_intervals_is_a_problem_with_its_error(
    client, settings
):
    settings.CONTINUITY_RETENTION_INTERVAL_SECONDS = 60
    MaintenanceRun.objects.create(task=RETENTION, status="failed", started_at=ago(seconds=400),
                                  finished_at=ago(seconds=399), error="OperationalError: locked")  # fmt: skip

    body = client.get("/health").json()

    assert body["status"] == "degraded"
    assert "never succeeded" in body["watchdog"]["problems"][0]
    assert "OperationalError: locked" in body["watchdog"]["problems"][0]


def test_a_job_not_attempted_yet_is_not_judged(client):
    assert client.get("/health").json()["status"] == "ok"


def test_a_stopped_heartbeat_is_a_problem_once_a_worker_has_beaten(client, settings):
    settings.CONTINUITY_HEARTBEAT_SECONDS = 10
    cache.set(HEARTBEAT_CACHE_KEY, ago(seconds=45).isoformat(), timeout=None)

    body = client.get("/health").json()

    assert body["status"] == "degraded"
    assert body["watchdog"]["heartbeat_age_seconds"] >= 45
    assert "heartbeat" in body["watchdog"]["problems"][0]


def test_pending_work_with_no_progress_for_ten_minutes_is_a_stall(client, monkeypatch):
    # How capture ingestion will plug in: pending batches and when one was last processed.
    state = {"pending": 3, "last": ago(minutes=11)}
    probe = WorkProbe("capture.ingestion", lambda: state["pending"], lambda: state["last"])
    monkeypatch.setitem(watchdog.PROBES, probe.name, probe)

    stalled = client.get("/health").json()
    state["last"] = ago(minutes=2)
    progressing = client.get("/health").json()
    state.update(pending=0, last=None)
    idle = client.get("/health").json()

    assert stalled["status"] == "degraded"
    assert stalled["watchdog"]["work"]["capture.ingestion"] == {**stalled["watchdog"]["work"]["capture.ingestion"],
                                                                "pending": 3, "stalled": True}  # fmt: skip
    assert "3 pending but nothing processed" in stalled["watchdog"]["problems"][0]
    assert progressing["status"] == "ok"
    assert idle["status"] == "ok"


def test_doctor_prints_each_part_and_exits_zero_when_all_is_well(owner):
    idempotency_records(owner, 2, age=timedelta(days=2))
    retention_cleanup.delay()
    out = StringIO()

    call_command("doctor", stdout=out)

    text = out.getvalue()
    assert ": ok" in text.splitlines()[0]
    assert "database" in text and "broker" in text and "heartbeat never" in text
    assert f"[ok  ] {RETENTION}: last success" in text and "removed 2" in text


def test_doctor_exits_non_zero_and_names_the_problem(settings):
    settings.CONTINUITY_RETENTION_INTERVAL_SECONDS = 60
    MaintenanceRun.objects.create(task=RETENTION, status="succeeded", started_at=ago(hours=1),
                                  finished_at=ago(hours=1))  # fmt: skip
    out = StringIO()

    with pytest.raises(CommandError) as info:
        call_command("doctor", stdout=out)

    assert info.value.returncode == 1
    assert f"[FAIL] {RETENTION}" in out.getvalue()
    assert "problem:" in out.getvalue()


def test_doctor_json_is_the_health_report():
    out = StringIO()

    call_command("doctor", "--json", stdout=out)

    report = json.loads(out.getvalue())
    assert report["status"] == "ok"
    assert set(report["watchdog"]["jobs"]) >= {RETENTION, "memories.compaction"}
