"""How memories, links and history events look on the MCP wire: plain JSON objects.

Field names follow DESIGN §3 and §5, the same names the agent API uses.
"""

from __future__ import annotations

from datetime import datetime

from memories.models import Memory, MemoryEvent, MemoryLink


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def memory_shape(memory: Memory) -> dict:
    return {
        "id": str(memory.pk),
        "content": memory.content,
        "key": memory.key,
        "value": memory.value,
        "type": memory.type,
        "kind": memory.kind,
        "scope_type": memory.scope_type,
        "scope_key": memory.scope_key,
        "trust": memory.trust,
        "status": memory.status,
        "visibility": memory.visibility,
        "origin": memory.origin,
        "source_agent": memory.source_agent,
        "confidence": memory.confidence,
        "confidence_basis": memory.confidence_basis or None,
        "version": memory.version,
        "supersedes": str(memory.supersedes_id) if memory.supersedes_id else None,
        "tags": list(memory.tags or []),
        "retrieval_hints": list(memory.retrieval_hints or []),
        "created_at": _when(memory.created_at),
        "updated_at": _when(memory.updated_at),
    }


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
