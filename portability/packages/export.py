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
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from handoff.models import HandoffCapsule
from handoff.shapes import capsule_shape
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.shapes import event_shape, link_shape, memory_shape
from portability.packages.format import (
    FILES,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    instance_id,
    jsonl,
    sha256,
)

BATCH = 2000


def _rows(queryset, shape):
    """Each row in its package record form: the apps' shapes for the `export` audience."""
    return [shape(row, "export") for row in queryset.iterator(chunk_size=BATCH)]


def package_contents(*, actor: Actor) -> dict[str, bytes]:
    """The package's files as bytes, manifest included: only the actor's own data, read in
    one transaction so the files agree with each other. Owner-only."""
    actor.require_owner(gettext_noop("export the memory store"))
    owner = actor.user
    with transaction.atomic():
        records = {
            "memories": _rows(Memory.objects.filter(owner=owner).order_by("created_at", "id"), memory_shape),
            "events": _rows(MemoryEvent.objects.filter(owner=owner).order_by("id"), event_shape),
            "links": _rows(MemoryLink.objects.filter(owner=owner).order_by("id"), link_shape),
            "handoffs": _rows(HandoffCapsule.objects.filter(owner=owner).order_by("created_at", "id"), capsule_shape),
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
