"""Stores as they were before writes asked the relation judge, for the compaction tests."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from memories.services import relations


@contextmanager
def before_the_judge():
    """Writes inside go through the real write path without the relation judge, as every
    write did before it existed: nothing is returned as a duplicate, linked or raised."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(relations, "assess", lambda actor, **fields: [])
        yield
