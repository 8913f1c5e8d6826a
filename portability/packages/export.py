"""Export one owner's memory as a package: memories, events, links and handoffs."""

from __future__ import annotations

import io
import json
import os
import tarfile
import tempfile
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from foundation.actors import Actor
from handoff.models import HandoffCapsule
from memories.models import Memory, MemoryEvent, MemoryLink
from portability.packages.format import (
    FILES,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    instance_id,
    jsonl,
    sha256,
    when,
)

BATCH = 2000


def memory_record(memory: Memory) -> dict:
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
        "confidence_basis": memory.confidence_basis,
        "version": memory.version,
        "supersedes": str(memory.supersedes_id) if memory.supersedes_id else None,
        "tags": list(memory.tags or []),
        "retrieval_hints": list(memory.retrieval_hints or []),
        "verified_at": when(memory.verified_at),
        "created_at": when(memory.created_at),
        "updated_at": when(memory.updated_at),
    }


def event_record(event: MemoryEvent) -> dict:
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


def link_record(link: MemoryLink) -> dict:
    return {
        "from_id": str(link.from_memory_id),
        "to_id": str(link.to_memory_id) if link.to_memory_id else None,
        "uri": link.uri or None,
        "relation": link.relation,
        "created_by_agent": link.created_by_agent,
        "created_at": when(link.created_at),
    }


def handoff_record(capsule: HandoffCapsule) -> dict:
    return {
        "id": str(capsule.pk),
        "task_id": capsule.task_id,
        "summary": capsule.summary,
        "status": capsule.status,
        "decisions": list(capsule.decisions),
        "next_steps": list(capsule.next_steps),
        "artifacts": list(capsule.artifacts),
        "blockers": list(capsule.blockers),
        "from_agent": capsule.from_agent,
        "created_at": when(capsule.created_at),
        "expires_at": when(capsule.expires_at),
        "resumed_at": when(capsule.resumed_at),
        "resumed_by": capsule.resumed_by,
        "resume_count": capsule.resume_count,
    }


def _rows(queryset, shape):
    return [shape(row) for row in queryset.iterator(chunk_size=BATCH)]


def package_contents(*, actor: Actor) -> dict[str, bytes]:
    """The package's files as bytes, manifest included: only the actor's own data, read in
    one transaction so the files agree with each other. Owner-only."""
    actor.require_owner("export the memory store")
    owner = actor.user
    with transaction.atomic():
        records = {
            "memories": _rows(Memory.objects.filter(owner=owner).order_by("created_at", "id"), memory_record),
            "events": _rows(MemoryEvent.objects.filter(owner=owner).order_by("id"), event_record),
            "links": _rows(MemoryLink.objects.filter(owner=owner).order_by("id"), link_record),
            "handoffs": _rows(HandoffCapsule.objects.filter(owner=owner).order_by("created_at", "id"), handoff_record),
        }  # fmt: skip
    files = {FILES[kind]: jsonl(items) for kind, items in records.items()}
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created_at": timezone.now().isoformat(),
        "source_instance": instance_id(),
        "generator": f"continuity {settings.VERSION}",
        "counts": {kind: len(items) for kind, items in records.items()},
        "files": {
            name: {"sha256": sha256(data), "bytes": len(data), "records": len(records[kind])}
            for kind, name in FILES.items()
            for data in [files[name]]
        },
    }
    files[MANIFEST] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    return files


def write_tar(files: dict[str, bytes], stream) -> None:
    """A gzip'd tar of the files, manifest first, written to a binary file object."""
    mtime = int(timezone.now().timestamp())
    with tarfile.open(fileobj=stream, mode="w:gz") as tar:
        for name in [MANIFEST, *FILES.values()]:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(files[name]), mtime, 0o600
            tar.addfile(info, io.BytesIO(files[name]))


def package_export(*, actor: Actor, output: str | Path) -> dict:
    """Write the owner's package to `output`: a `.tar.gz` file, or a directory when the path
    ends with a slash or is an existing directory. The file appears whole or not at all.
    Returns the manifest."""
    files = package_contents(actor=actor)
    as_directory = str(output).endswith(os.sep) or Path(output).is_dir()
    output = Path(output)
    if as_directory:
        output.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (output / name).write_bytes(data)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=output.parent, prefix=".export-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                write_tar(files, stream)
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, 0o600)
            os.replace(temporary, output)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    return json.loads(files[MANIFEST])
