"""Building a varied store to export, and altering packages the way damage or tampering would."""

from __future__ import annotations

import json
from pathlib import Path

from handoff.services import handoff_create, handoff_resume
from memories.services import (
    memory_archive,
    memory_checkpoint,
    memory_delete,
    memory_link,
    memory_lock,
    memory_remember,
)
from portability.packages.format import FILES, MANIFEST, sha256


def build_store(owner_actor, agent_actor) -> dict:
    """Every kind of row a package carries: versions, archived, private, disputed, deleted
    (a tombstone), links to memories and to URIs, a checkpoint, handoffs resumed or not."""
    first = memory_remember(actor=owner_actor, content="Python tests run with unittest.", kind="decision",
                            key="python.test_runner", scope_type="project", scope_key="github:ada/app",
                            value={"runner": "unittest"}, tags=["python", "testing"])  # fmt: skip
    second = memory_remember(actor=owner_actor, content="Python tests run with pytest.", kind="decision",
                             key="python.test_runner", scope_type="project", scope_key="github:ada/app",
                             value={"runner": "pytest"}, retrieval_hints=["which test runner"])  # fmt: skip
    memory_lock(actor=owner_actor, memory_id=second.id)
    disputed = memory_remember(actor=agent_actor, content="Python tests run with nose.", kind="decision",
                               key="python.test_runner", scope_type="project", scope_key="github:ada/app")  # fmt: skip
    private = memory_remember(actor=owner_actor, content="Prefers 记住 notes in Chinese at home.",
                              kind="preference", visibility="private", confidence=0.9,
                              confidence_basis="user_asserted")  # fmt: skip
    archived = memory_remember(actor=agent_actor, content="The CI runs on Travis.", kind="fact",
                               confidence=0.4, confidence_basis="agent_inferred")  # fmt: skip
    memory_archive(actor=owner_actor, memory_id=archived.id, reason="moved to GitHub Actions")
    doomed = memory_remember(actor=owner_actor, content="Temporary note to delete.", kind="fact")
    memory_delete(actor=owner_actor, memory_id=doomed.id)
    memory_link(
        actor=owner_actor,
        from_id=private.id,
        uri="https://example.org/notes",
        relation="derived_from",
    )
    memory_link(actor=owner_actor, from_id=archived.id, to_id=second.id, relation="related_to")
    checkpoint = memory_checkpoint(
        actor=agent_actor, summary="Parser done; CLI next.", task_id="TASK-7",
        memories=[{"content": "The parser is hand-written.", "kind": "decision"}],
    )  # fmt: skip
    open_capsule = handoff_create(actor=agent_actor, task_id="TASK-7", summary="CLI wiring next.",
                                  next_steps=["Wire argparse"], artifacts=["src/cli.py"])  # fmt: skip
    handoff_create(actor=owner_actor, task_id="TASK-8", summary="Docs half written.", status="blocked",
                   blockers=["Need screenshots"])  # fmt: skip
    handoff_resume(actor=agent_actor, task_id="TASK-7")
    return {"first": first.id, "second": second.id, "disputed": disputed.id, "private": private.id,
            "archived": archived.id, "checkpoint": checkpoint, "capsule": open_capsule.pk}  # fmt: skip


def read_lines(folder: Path, kind: str) -> list[dict]:
    return [json.loads(line) for line in (folder / FILES[kind]).read_text().splitlines()]


def write_lines(folder: Path, kind: str, records: list[dict], *, reseal: bool = True) -> None:
    """Replace a file's records; with `reseal` the manifest is updated to match, as a careful
    forger would, so that only record validation can catch the change."""
    data = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()
    (folder / FILES[kind]).write_bytes(data)
    if reseal:
        manifest = json.loads((folder / MANIFEST).read_text())
        manifest["files"][FILES[kind]] |= {
            "sha256": sha256(data),
            "bytes": len(data),
            "records": len(records),
        }
        manifest["counts"][kind] = len(records)
        (folder / MANIFEST).write_text(json.dumps(manifest))


def edit_manifest(folder: Path, **changes) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    (folder / MANIFEST).write_text(json.dumps(manifest | changes))
