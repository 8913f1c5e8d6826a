"""Every wire shape of a memory, a history event and a link, with the audience as an argument.

One function per noun, used by every door: the MCP tools and the agent API (`agent`), the
owner API (`owner`), and packages (`export`). Values are JSON-ready (ids and times as
strings). The rules the audiences follow:

- `agent` sees what a memory says, where it lives, how far it is trusted and where it came
  from. Usage and verification (`access_count`, `last_accessed_at`, `verified_at`) and the
  token that wrote it are the owner's, and never reach an agent. An absent optional text
  (a link's `uri`, an event's `reason`, `confidence_basis`, `created_by_agent`) is null.
- `owner` sees the agent's shape plus those owner-only fields.
- `export` is the package record format (docs/packages.md): every field an import needs to
  rebuild the store, and nothing a store computes for itself (ids of events and links,
  usage). Its stored form is kept byte for byte, so a package written earlier reads the same.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from memories.models import Memory, MemoryEvent, MemoryLink

Audience = Literal["owner", "agent", "export"]
AUDIENCES: tuple[Audience, ...] = ("owner", "agent", "export")
OWNER_ONLY_MEMORY_FIELDS = ("created_by_token", "access_count", "last_accessed_at", "verified_at")


def when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _id(value) -> str | None:
    return str(value) if value else None


def check_audience(audience: str) -> None:
    if audience not in AUDIENCES:
        raise ValueError(f"unknown audience {audience!r}; one of {', '.join(AUDIENCES)}")


def memory_shape(memory: Memory, audience: Audience) -> dict:
    """A memory: its statement, classification, trust and provenance; for the owner also
    its usage and verification; for a package what an import needs."""
    check_audience(audience)
    shape = {
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
        "supersedes": _id(memory.supersedes_id),
        "tags": list(memory.tags or []),
        "retrieval_hints": list(memory.retrieval_hints or []),
        "created_at": when(memory.created_at),
        "updated_at": when(memory.updated_at),
    }
    if audience == "owner":
        shape |= {
            "created_by_token": memory.created_by_token_id,
            "access_count": memory.access_count,
            "last_accessed_at": when(memory.last_accessed_at),
            "verified_at": when(memory.verified_at),
        }
    elif audience == "export":
        shape |= {
            "confidence_basis": memory.confidence_basis,
            "verified_at": when(memory.verified_at),
            "held": memory.held,
        }
    return shape


def event_shape(event: MemoryEvent, audience: Audience) -> dict:
    """One history event. Agents and the owner read who acted as `actor` ("owner" or
    "agent:<name>"); a package keeps the stored `actor_agent` and idempotency key instead."""
    check_audience(audience)
    if audience == "export":
        return {
            "memory_id": str(event.memory_id),
            "event_type": event.event_type,
            "version": event.version,
            "actor_agent": event.actor_agent,
            "patch": event.patch,
            "result": event.result,
            "reason": event.reason,
            "idempotency_key": event.idempotency_key,
            "created_at": when(event.created_at),
        }
    return {
        "id": event.pk,
        "memory_id": str(event.memory_id),
        "event_type": event.event_type,
        "version": event.version,
        "actor": event.actor_label,
        "patch": event.patch,
        "result": event.result,
        "reason": event.reason or None,
        "created_at": when(event.created_at),
    }


def link_shape(link: MemoryLink, audience: Audience) -> dict:
    """A link from a memory to a memory (`to_id`) or to a resource (`uri`); the one not
    given is null."""
    check_audience(audience)
    shape = {
        "id": link.pk,
        "from_id": str(link.from_memory_id),
        "to_id": _id(link.to_memory_id),
        "uri": link.uri or None,
        "relation": link.relation,
        "created_by_agent": link.created_by_agent or None,
        "created_at": when(link.created_at),
    }
    if audience == "export":
        del shape["id"]
        shape["created_by_agent"] = link.created_by_agent
    return shape
