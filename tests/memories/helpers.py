"""Small helpers shared by the memory tests."""

import pytest

from foundation.errors import ServiceError
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.services import memory_remember


def remember(actor, content="Use uv to manage Python environments.", kind="preference", **fields):
    return memory_remember(actor=actor, content=content, kind=kind, **fields)


def row_counts() -> tuple[int, int, int]:
    return Memory.objects.count(), MemoryEvent.objects.count(), MemoryLink.objects.count()


class raises:
    """`with raises(ErrorCode.X):` — a ServiceError with exactly that code."""

    def __init__(self, code):
        self.code = code

    def __enter__(self):
        self._context = pytest.raises(ServiceError)
        self.info = self._context.__enter__()
        return self.info

    def __exit__(self, *exc_info):
        handled = self._context.__exit__(*exc_info)
        assert self.info.value.code == self.code, repr(self.info.value)
        return handled
