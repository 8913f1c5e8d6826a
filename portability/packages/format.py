"""The memory package format, version 1 (docs/packages.md).

A package is a `.tar.gz` (or a directory) holding `manifest.json` and one JSONL file per
record type. The manifest names the format and its version, counts the records, and gives
the sha256 of every file, so a reader can refuse a damaged or altered package before
reading a single record. Derived fields (fingerprints, access counts, search columns) are
never written: the importer rebuilds them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime

from django.conf import settings

FORMAT = "continuity.memory-package"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
# record type -> file name, in import order
FILES = {
    "memories": "memories.jsonl",
    "events": "events.jsonl",
    "links": "links.jsonl",
    "handoffs": "handoffs.jsonl",
}
MAX_PACKAGE_BYTES = 1024 * 1024 * 1024  # uncompressed, all files together
MAX_MANIFEST_BYTES = 64 * 1024

MEMORY_FIELDS = (
    "id", "content", "key", "value", "type", "kind", "scope_type", "scope_key", "trust",
    "status", "visibility", "origin", "source_agent", "confidence", "confidence_basis",
    "version", "supersedes", "tags", "retrieval_hints", "verified_at", "created_at",
    "updated_at", "held",
)  # fmt: skip
# Fields a package written by an earlier release lacks, and the value they then stand for.
OPTIONAL_FIELDS = {"memories": {"held": False}, "events": {}, "links": {}, "handoffs": {}}
EVENT_FIELDS = (
    "memory_id", "event_type", "version", "actor_agent", "patch", "result", "reason",
    "idempotency_key", "created_at",
)  # fmt: skip
LINK_FIELDS = ("from_id", "to_id", "uri", "relation", "created_by_agent", "created_at")
HANDOFF_FIELDS = (
    "id", "task_id", "summary", "status", "decisions", "next_steps", "artifacts", "blockers",
    "from_agent", "created_at", "expires_at", "resumed_at", "resumed_by", "resume_count",
)  # fmt: skip
RECORD_FIELDS = {
    "memories": MEMORY_FIELDS,
    "events": EVENT_FIELDS,
    "links": LINK_FIELDS,
    "handoffs": HANDOFF_FIELDS,
}


def instance_id() -> str:
    """A stable id of this Continuity installation that reveals nothing of its secret key:
    every web process of one deployment shares the key, hence the id."""
    digest = hmac.new(settings.SECRET_KEY.encode(), b"continuity-instance-id", hashlib.sha256)
    return digest.hexdigest()[:32]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def jsonl(records) -> bytes:
    """One compact JSON object per line, keys sorted: the same store gives the same bytes."""
    lines = [
        json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        for record in records
    ]
    return "".join(line + "\n" for line in lines).encode("utf-8")
