"""How memories, links and history events look on the MCP wire: plain JSON objects.

Field names follow DESIGN §3 and §5, the same names the agent API uses.
"""

from __future__ import annotations

from datetime import datetime

from memories.models import MemoryEvent, MemoryLink
from memories.presenters import memory_shape  # noqa: F401 - the tools import it from here


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def link_shape(link: MemoryLink) -> dict:
    return {
        "id": link.pk,
        "from_id": str(link.from_memory_id),
        "to_id": str(link.to_memory_id) if link.to_memory_id else None,
        "uri": link.uri or None,
        "relation": link.relation,
        "created_by_agent": link.created_by_agent or None,
        "created_at": _when(link.created_at),
    }


def event_shape(event: MemoryEvent) -> dict:
    return {
        "id": event.pk,
        "memory_id": str(event.memory_id),
        "event_type": event.event_type,
        "version": event.version,
        "actor": event.actor_label,
        "patch": event.patch,
        "result": event.result,
        "reason": event.reason or None,
        "created_at": _when(event.created_at),
    }
