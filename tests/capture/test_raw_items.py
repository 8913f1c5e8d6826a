"""A batch's raw items are redacted before they are stored: no credential is kept even while
the batch waits for a worker, nor after an attempt fails."""

from __future__ import annotations

import json

import pytest

from capture.models import CaptureBatch
from capture.services.ingest import batch_fail, batch_submit

pytestmark = pytest.mark.django_db

SECRET = "ghp_" + "Zk3Lq9Wm" * 4 + "xy12"
CARD = "4111 1111 1111 1111"


def _submit(actor):
    items = [
        {"role": "user", "text": f"my token is {SECRET}"},
        {"role": "assistant", "text": "noted", "meta": {"card": f"card {CARD}"}},
    ]
    return batch_submit(
        actor=actor, source="generic", thread_id="t-raw", items=items,
        size_bytes=len(json.dumps(items)),
    )  # fmt: skip


def test_a_queued_batch_holds_its_items_redacted(agent_actor):
    batch = _submit(agent_actor)  # the worker has not run: on_commit never fires here

    stored = json.dumps(CaptureBatch.objects.get(pk=batch.pk).items)
    assert SECRET not in stored and CARD not in stored
    assert "[REDACTED:" in stored
    assert sum(batch.redactions.values()) >= 2


def test_a_failed_batch_keeps_no_credential_either(agent_actor):
    batch = _submit(agent_actor)
    batch_fail(batch_id=batch.pk, error=RuntimeError(f"boom near {SECRET}"), final=True)

    failed = CaptureBatch.objects.get(pk=batch.pk)
    assert failed.status == "failed"
    assert SECRET not in json.dumps(failed.items) and SECRET not in failed.last_error
