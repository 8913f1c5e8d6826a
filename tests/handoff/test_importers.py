"""Importers from other tools: a real context-keeper store, written by the context-keeper-mcp
package's own CLI, and a generic JSONL file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.services import memory_remember
from portability.importers import context_keeper, context_keeper_import, jsonl, jsonl_import
from tests.api.helpers import database_dump
from tests.memories.helpers import expected_refusal, is_free_text, planted_token, shaped

pytestmark = pytest.mark.django_db

CONTEXT_KEEPER = Path(sys.executable).parent / "context-keeper"
PROJECT = "github:ada/pipeline"


def keeper(project: Path, tool: str, **arguments) -> dict:
    """Run one context-keeper tool through its own CLI, as an agent's hook would."""
    result = subprocess.run(
        [str(CONTEXT_KEEPER), tool, json.dumps({"project_dir": str(project), **arguments})],
        capture_output=True, text=True, timeout=60, cwd=project,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def keeper_store(tmp_path_factory) -> Path:
    """A real `.context/` store: decisions (one superseding another), a constraint with a
    scope, a pipeline with steps, related entries, and a deprecated entry."""
    assert CONTEXT_KEEPER.exists(), "context-keeper-mcp, a dev dependency, is not installed"
    project = tmp_path_factory.mktemp("keeper-project")
    old = keeper(project, "record_entry", kind="decision", summary="Store events in one SQLite table",
                 problem="Conversation events arrive from several agents and must be stored durably in order.",
                 why_chosen="A single table is the simplest thing that keeps ordering and survives restarts well.",
                 tags=["storage"])["id"]  # fmt: skip
    new = keeper(project, "record_entry", kind="decision", summary="Partition conversation events by month",
                 problem="Conversation events grow without bound and retention must drop old ones cheaply.",
                 why_chosen="Monthly partitions let retention drop a whole partition instead of deleting rows one by one.",
                 tradeoffs="Queries across months touch several partitions.", supersedes=[old],
                 tags=["storage", "retention"], retrieval_hints=["how are events stored"])["id"]  # fmt: skip
    rule = keeper(project, "record_entry", kind="constraint", rule="Never store raw API keys in events",
                  reason="Captured transcripts are kept for months and are readable by every agent of the owner.",
                  scope="capture/**", hardness="absolute", related_to=[new], origin="user")["id"]  # fmt: skip
    keeper(project, "record_entry", kind="pipeline", name="Release", purpose="Ship a tagged release to the package index after the checks pass.",
           steps=[{"order": 1, "action": "Run the full test suite", "output": "green CI"},
                  {"order": 2, "action": "Tag the commit"}, {"order": 3, "action": "Publish the wheel"}],
           related_to=[rule])  # fmt: skip
    dropped = keeper(project, "record_entry", kind="constraint", rule="Only run CI on main",
                     reason="Runner minutes were scarce during the first months of the project's life.")["id"]  # fmt: skip
    keeper(project, "deprecate_entry", id=dropped, reason="Runners are plentiful now.")
    assert sorted(path.name for path in (project / ".context").glob("*.json")) >= [
        "constraints.json",
        "decisions.json",
        "pipelines.json",
    ]
    return project


def by_key(owner, foreign_id: str) -> Memory:
    return Memory.objects.get(owner=owner, key=f"context-keeper/{foreign_id}")


def test_a_real_context_keeper_store_imports_with_kinds_status_and_provenance(
    keeper_store, owner_actor
):
    report = context_keeper_import(actor=owner_actor, path=keeper_store, project_key=PROJECT)

    owner = owner_actor.user
    assert report.created["memories"] == 5
    old, new = by_key(owner, "dec-001"), by_key(owner, "dec-002")
    assert (old.kind, old.status, new.status) == ("decision", "superseded", "active")
    assert new.supersedes == old and new.version == 2
    assert "Why: Monthly partitions" in new.content and "Trade-offs:" in new.content
    assert new.value["context_keeper"]["id"] == "dec-002" and new.value["problem"].startswith(
        "Conversation"
    )
    assert new.scope_type == "project" and new.scope_key == PROJECT
    assert (new.origin, new.source_agent, new.trust) == ("import", "context-keeper", "observed")
    assert new.retrieval_hints == ["how are events stored"] and "retention" in new.tags
    rule = by_key(owner, "con-001")
    assert (
        rule.kind == "constraint"
        and rule.trust == "confirmed"
        and "Applies to: capture/**" in rule.content
    )
    pipeline = by_key(owner, "pipe-001")
    assert (pipeline.kind, pipeline.type) == ("procedure", "procedural")
    assert "1. Run the full test suite → green CI; 2. Tag the commit" in pipeline.content
    assert by_key(owner, "con-002").status == "archived"
    assert MemoryLink.objects.filter(
        from_memory=rule, to_memory=new, relation="related_to"
    ).exists()
    assert MemoryLink.objects.filter(
        from_memory=new, uri="context-keeper:decisions.json#dec-002", relation="derived_from"
    ).exists()
    assert (
        MemoryEvent.objects.get(memory_id=new.pk).reason == "imported from context-keeper dec-002"
    )


def test_importing_the_same_store_again_with_merge_finds_only_duplicates(keeper_store, owner_actor):
    context_keeper_import(actor=owner_actor, path=keeper_store / ".context", project_key=PROJECT)
    before = Memory.objects.count()

    report = context_keeper_import(
        actor=owner_actor, path=keeper_store, project_key=PROJECT, merge=True
    )

    assert report.duplicate["memories"] == 5 and report.created["memories"] == 0
    assert Memory.objects.count() == before


def test_a_changed_entry_merges_as_a_conflict_never_an_overwrite(
    keeper_store, owner_actor, tmp_path
):
    context_keeper_import(actor=owner_actor, path=keeper_store, project_key=PROJECT)
    changed = tmp_path / ".context"
    changed.mkdir()
    for path in (keeper_store / ".context").glob("*.json"):
        (changed / path.name).write_bytes(path.read_bytes())
    decisions = json.loads((changed / "decisions.json").read_text())
    decisions[1]["summary"] = "Partition conversation events by week"
    (changed / "decisions.json").write_text(json.dumps(decisions))

    report = context_keeper_import(actor=owner_actor, path=changed, project_key=PROJECT, merge=True)

    [conflict] = report.conflicting
    assert conflict["key"] == "context-keeper/dec-002"
    assert Memory.objects.get(pk=conflict["existing_id"]).content.startswith(
        "Partition conversation events by month"
    )
    assert Memory.objects.get(pk=conflict["id"]).status == "disputed"


def test_a_broken_store_is_refused_whole(keeper_store, owner_actor, tmp_path):
    broken = tmp_path / ".context"
    broken.mkdir()
    decisions = json.loads((keeper_store / ".context" / "decisions.json").read_text())
    decisions[0]["created_at"] = "last tuesday"
    (broken / "decisions.json").write_text(json.dumps(decisions))
    (broken / "constraints.json").write_text("{not json")
    before = database_dump()

    with pytest.raises(ServiceError) as caught:
        context_keeper_import(actor=owner_actor, path=tmp_path)
    assert caught.value.details[0]["file"] == "constraints.json"
    (broken / "constraints.json").write_text("[]")
    with pytest.raises(ServiceError) as caught:
        context_keeper_import(actor=owner_actor, path=tmp_path)
    assert caught.value.details[0] | {} == {"file": "decisions.json", "line": 1, "id": "dec-001",
                                            "field": "created_at", "message": "must be an ISO 8601 date-time string"}  # fmt: skip
    assert database_dump() == before


def test_the_command_imports_a_context_keeper_store(keeper_store, owner_actor):
    out = __import__("io").StringIO()
    call_command("import_memories", str(keeper_store), "--user", "ada", "--from", "context-keeper",
                 "--project", PROJECT, "--json", stdout=out)  # fmt: skip
    assert json.loads(out.getvalue())["created"]["memories"] == 5


# --- generic JSONL ----------------------------------------------------------------------------


def write(tmp_path, *lines) -> Path:
    path = tmp_path / "notes.jsonl"
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    )
    return path


def test_a_jsonl_file_imports_with_its_ids_as_provenance(owner_actor, tmp_path):
    path = write(
        tmp_path,
        {
            "id": "n-1",
            "content": "Prefers short commit subjects.",
            "kind": "preference",
            "tags": ["git"],
        },
        "",
        {
            "content": "Deploys happen on Tuesdays.",
            "kind": "fact",
            "scope_type": "project",
            "scope_key": PROJECT,
            "trust": "confirmed",
            "created_at": "2025-03-01T09:00:00+00:00",
        },  # fmt: skip
    )

    report = jsonl_import(actor=owner_actor, path=path)

    assert report.created["memories"] == 2
    deploys = Memory.objects.get(content="Deploys happen on Tuesdays.")
    assert (
        deploys.trust == "confirmed"
        and deploys.created_at.year == 2025
        and deploys.origin == "import"
    )
    assert MemoryLink.objects.filter(from_memory=deploys, uri="jsonl:notes.jsonl#line-3").exists()
    assert MemoryLink.objects.filter(uri="jsonl:notes.jsonl#n-1").exists()


@pytest.mark.parametrize(
    "line, field, code",
    [
        ({"content": "x", "kind": "opinion"}, "kind", ErrorCode.VALIDATION_ERROR),
        ({"content": "x", "kind": "fact", "trust": "locked"}, "trust", ErrorCode.VALIDATION_ERROR),
        ({"content": "The deploy key is AKIAIOSFODNN7EXAMPLE", "kind": "fact"}, "content",
         ErrorCode.SECRET_REJECTED),
        ({"content": "x", "kind": "fact", "colour": "red"}, None, ErrorCode.VALIDATION_ERROR),
        ("[]", None, ErrorCode.VALIDATION_ERROR),
    ],
)  # fmt: skip
def test_one_bad_jsonl_line_refuses_the_file_and_names_its_line(
    owner_actor, tmp_path, line, field, code
):
    path = write(tmp_path, {"content": "Fine line.", "kind": "fact"}, line)
    before = database_dump()

    with pytest.raises(ServiceError) as caught:
        jsonl_import(actor=owner_actor, path=path)

    assert caught.value.code == code
    problem = caught.value.details[0]
    assert (problem["file"], problem["line"], problem["field"]) == ("notes.jsonl", 2, field)
    assert database_dump() == before


def test_jsonl_into_a_non_empty_store_needs_merge(owner_actor, tmp_path):
    memory_remember(actor=owner_actor, content="Prefers short commit subjects.", kind="preference")
    path = write(tmp_path, {"content": "Prefers short commit subjects.", "kind": "preference"})

    with pytest.raises(CommandError, match="CONFLICT"):
        call_command("import_memories", str(path), "--user", "ada", "--from", "jsonl")
    report = jsonl_import(actor=owner_actor, path=path, merge=True)
    assert report.duplicate["memories"] == 1 and report.created["memories"] == 0


# --- every field an importer reads goes through the write gate --------------------------------

SECRET = planted_token()
# The source's own id is kept as provenance text (history, the derived_from link's URI).
PROVENANCE_FIELDS = {"id"}


@pytest.mark.parametrize("field", sorted(jsonl.ALLOWED))
def test_a_secret_in_any_field_of_a_jsonl_line_refuses_the_file(owner_actor, tmp_path, field):
    line = {"id": "n-1", "content": "Deploys happen on Tuesdays.", "kind": "fact",
            "scope_type": "project", "scope_key": PROJECT, "key": "deploy.day",
            "value": {"day": "tuesday"}, "tags": ["deploy"], "retrieval_hints": ["deploy day"]}  # fmt: skip
    line[field] = shaped(SECRET, line.get(field))
    path = write(tmp_path, line)
    before = database_dump()

    with pytest.raises(ServiceError) as caught:
        jsonl_import(actor=owner_actor, path=path)

    free_text = field in PROVENANCE_FIELDS or is_free_text(Memory, field)
    assert caught.value.code in expected_refusal(free_text)
    assert database_dump() == before


@pytest.mark.parametrize(
    "file, field",
    [(file, field) for file, fields in context_keeper.VALUE_FIELDS.items() for field in fields],
)
def test_a_secret_in_any_field_of_a_context_keeper_entry_refuses_the_store(
    owner_actor, tmp_path, file, field
):
    entry = {"id": "entry-1", "summary": "Store events in one table.", "rule": "Keep events.",
             "name": "release", "purpose": "Ship a release.", "origin": "user",
             field: f"see {SECRET}"}  # fmt: skip
    (tmp_path / file).write_text(json.dumps([entry]))
    before = database_dump()

    with pytest.raises(ServiceError) as caught:
        context_keeper_import(actor=owner_actor, path=tmp_path)

    assert caught.value.code == ErrorCode.SECRET_REJECTED
    assert database_dump() == before
