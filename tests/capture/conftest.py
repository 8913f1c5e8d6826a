"""Fixtures shared by the capture tests."""

from __future__ import annotations

import pytest

from capture.services.ingest import batch_submit


@pytest.fixture
def submit(django_capture_on_commit_callbacks):
    """Post a batch as the API does; the enqueue on commit runs the (eager) task."""

    def post(actor, items, *, source="claude_code", thread_id="s-1", **extra):
        with django_capture_on_commit_callbacks(execute=True):
            batch = batch_submit(
                actor=actor,
                source=source,
                thread_id=thread_id,
                items=items,
                size_bytes=100,
                **extra,
            )
        batch.refresh_from_db()
        return batch

    return post
