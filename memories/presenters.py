"""How a memory looks to the outside, in one place for every door that shows one."""

from __future__ import annotations

from memories.models import Memory


def memory_shape(memory: Memory) -> dict:
    """What an agent may see of a memory: its statement, classification, trust and
    provenance, as JSON-ready values."""
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
        "created_at": memory.created_at.isoformat() if memory.created_at else None,
        "updated_at": memory.updated_at.isoformat() if memory.updated_at else None,
    }
