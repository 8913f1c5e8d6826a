"""The capture ingestion probe through /health and `manage.py doctor`."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from capture.models import BatchStatus, CaptureBatch, CaptureThread
from foundation.tasks import HEARTBEAT_CACHE_KEY

pytestmark = pytest.mark.django_db
PROBE = "capture ingestion"


@pytest.fixture(autouse=True)
def no_heartbeat():
    cache.delete(HEARTBEAT_CACHE_KEY)
    yield
    cache.delete(HEARTBEAT_CACHE_KEY)


@pytest.fixture
def batch(owner):
    thread = CaptureThread.objects.create(owner=owner, source="text", external_id="t")

    def make(status, *, created_minutes, finished_minutes=None):
        now = timezone.now()
        return CaptureBatch.objects.create(
            owner=owner, thread=thread, status=status, created_at=now - timedelta(minutes=created_minutes),
            finished_at=None if finished_minutes is None else now - timedelta(minutes=finished_minutes),
        )  # fmt: skip

    return make


def test_pending_batches_and_nothing_processed_for_ten_minutes_is_unhealthy(client, batch):
    batch(BatchStatus.DONE, created_minutes=60, finished_minutes=59)
    batch(BatchStatus.QUEUED, created_minutes=11)
    batch(BatchStatus.QUEUED, created_minutes=3)

    body = client.get("/health").json()

    assert body["status"] == "degraded"
    assert body["watchdog"]["work"][PROBE]["pending"] == 2
    assert any(
        p.startswith(f"{PROBE}: 2 pending but nothing processed for")
        for p in body["watchdog"]["problems"]
    )


def test_a_batch_that_just_arrived_after_a_quiet_hour_is_not_a_stall(client, batch):
    batch(BatchStatus.DONE, created_minutes=60, finished_minutes=59)
    batch(BatchStatus.QUEUED, created_minutes=1)

    assert client.get("/health").json()["watchdog"]["work"][PROBE]["stalled"] is False


def test_a_queue_that_keeps_moving_is_healthy(client, batch):
    batch(BatchStatus.QUEUED, created_minutes=30)
    batch(BatchStatus.DONE, created_minutes=31, finished_minutes=1)

    assert client.get("/health").json()["watchdog"]["work"][PROBE]["stalled"] is False


def test_doctor_fails_naming_the_stalled_ingestion(batch):
    batch(BatchStatus.PROCESSING, created_minutes=45)
    out = StringIO()

    with pytest.raises(CommandError):
        call_command("doctor", stdout=out)

    assert f"{PROBE}: 1 pending but nothing processed for" in out.getvalue()
