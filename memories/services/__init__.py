"""Every write to memory goes through these services (DESIGN §1, principle 4)."""

from memories.services.checkpoint import memory_checkpoint
from memories.services.lifecycle import (
    memory_archive,
    memory_confirm,
    memory_correct,
    memory_delete,
    memory_forget,
    memory_lock,
    memory_restore,
    memory_supersede,
    memory_unlock,
)
from memories.services.links import memory_link
from memories.services.remember import RememberReceipt, memory_remember

__all__ = [
    "RememberReceipt",
    "memory_archive",
    "memory_checkpoint",
    "memory_confirm",
    "memory_correct",
    "memory_delete",
    "memory_forget",
    "memory_link",
    "memory_lock",
    "memory_remember",
    "memory_restore",
    "memory_supersede",
    "memory_unlock",
]
