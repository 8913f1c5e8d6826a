"""Capture's retention rules through the real purge: windows, what is kept, the cap."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from capture.models import BatchStatus, Candidate, CaptureBatch, CaptureThread, ConversationEvent
from foundation.maintenance import retention
from foundation.maintenance.retention import purge, rule_get
from foundation.maintenance.runs import Deadline
from injection.models import InjectionReceipt

pytestmark = pytest.mark.django_db


def forever() -> Deadline:
    return Deadline.after(3600)


@pytest.fixture
def thread(owner):
    return CaptureThread.objects.create(owner=owner, source="codex", external_id="t")


def ago(**delta):
    return timezone.now() - timedelta(**delta)


def test_capture_rules_are_registered_with_their_default_windows():
    windows = {item["rule"]: item["window"] for item in retention.retention_windows()}
    assert {k: windows[k] for k in ("conversation_events", "pending_candidates", "injection_receipts",
                                    "capture_batches")} == {  # fmt: skip
        "conversation_events": 7, "pending_candidates": 30, "injection_receipts": 30, "capture_batches": 7,
    }  # fmt: skip


def test_events_older_than_the_window_are_deleted(owner, thread, settings):
    for n, age in enumerate((8, 8, 6)):
        ConversationEvent.objects.create(owner=owner, thread=thread, fingerprint=f"f{n}", seq=n,
                                         role="user", text="旧的对话", created_at=ago(days=age))  # fmt: skip
    assert purge(rule_get("conversation_events"), deadline=forever())["removed"] == 2
    assert list(ConversationEvent.objects.values_list("fingerprint", flat=True)) == ["f2"]

    settings.CONTINUITY_RETENTION_EVENTS_DAYS = 5
    assert purge(rule_get("conversation_events"), deadline=forever())["removed"] == 1


def candidate(owner, fingerprint, status="pending", days=31):
    return Candidate.objects.create(
        owner=owner, content="Use Redis for caching.", fingerprint=fingerprint, kind="decision",
        rule="we_decided", confidence=0.8, status=status, updated_at=ago(days=days),
        evidence=[{"sentence": "我们决定用 Redis 做缓存。", "agent": "codex"}],
    )  # fmt: skip


def test_old_pending_candidates_expire_keeping_their_evidence(owner):
    candidate(owner, "a"), candidate(owner, "b", days=2), candidate(owner, "c", "approved")

    assert purge(rule_get("pending_candidates"), deadline=forever())["removed"] == 1
    statuses = {
        c.fingerprint: (c.status, c.evidence[0]["sentence"]) for c in Candidate.objects.all()
    }
    assert statuses == {
        "a": ("expired", "我们决定用 Redis 做缓存。"), "b": ("pending", "我们决定用 Redis 做缓存。"),
        "c": ("approved", "我们决定用 Redis 做缓存。"),
    }  # fmt: skip


def test_receipts_go_after_30_days_and_beyond_the_row_cap(owner, settings):
    settings.CONTINUITY_RETENTION_RECEIPTS_MAX_ROWS = 3
    for days in (40, 5, 4, 3, 2, 1):
        InjectionReceipt.objects.create(owner=owner, prompt_sha256="abc", created_at=ago(days=days))

    report = purge(rule_get("injection_receipts"), deadline=forever())

    assert (report["removed"], report["over_cap"]) == (3, 2)
    kept = sorted((timezone.now() - r.created_at).days for r in InjectionReceipt.objects.all())
    assert kept == [1, 2, 3]  # the newest three


def test_processed_batches_go_after_their_window_and_pending_ones_stay(owner, thread):
    def batch(status, finished_days):
        return CaptureBatch.objects.create(
            owner=owner, thread=thread, status=status,
            finished_at=ago(days=finished_days) if finished_days is not None else None,
            created_at=ago(days=30),
        )  # fmt: skip

    batch(BatchStatus.DONE, 8), batch(BatchStatus.FAILED, 9)
    recent, queued = batch(BatchStatus.DONE, 1), batch(BatchStatus.QUEUED, None)

    assert purge(rule_get("capture_batches"), deadline=forever())["removed"] == 2
    assert set(CaptureBatch.objects.values_list("pk", flat=True)) == {recent.pk, queued.pk}
