"""`manage.py export_memories` / `import_memories` as an owner runs them."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from memories.models import Memory
from tests.api.helpers import database_dump
from tests.handoff.packages import build_store, edit_manifest

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_export_then_import_into_another_owner(owner_actor, agent_actor, other_owner, tmp_path):
    build_store(owner_actor, agent_actor)
    target = tmp_path / "ada.tar.gz"

    exported = run("export_memories", "--user", "ada", "--output", str(target))
    imported = run("import_memories", "--user", "grace", str(target))

    assert f"to {target}" in exported and "handoffs" in exported
    assert imported.startswith("Imported (empty mode): created")
    assert (
        Memory.objects.filter(owner=other_owner).count()
        == Memory.objects.filter(owner=owner_actor.user).count()
    )


def test_a_second_import_needs_merge_and_then_reports_duplicates(
    owner_actor, agent_actor, other_owner, tmp_path
):
    build_store(owner_actor, agent_actor)
    target = tmp_path / "ada.tar.gz"
    run("export_memories", "--user", "ada", "--output", str(target))
    run("import_memories", "--user", "grace", str(target))

    with pytest.raises(CommandError, match="CONFLICT: The store is not empty"):
        run("import_memories", "--user", "grace", str(target))
    report = run("import_memories", "--user", "grace", str(target), "--merge")

    assert "created 0 memories" in report and "Duplicate (already here, skipped):" in report
    assert "Conflicting (imported as disputed, for review): 0." in report


def test_a_refused_package_prints_every_problem_and_changes_nothing(
    owner_actor, agent_actor, other_owner, tmp_path
):
    build_store(owner_actor, agent_actor)
    folder = tmp_path / "pkg"
    run("export_memories", "--user", "ada", "--output", f"{folder}/")
    edit_manifest(folder, format_version=99)
    before = database_dump()

    with pytest.raises(CommandError) as caught:
        run("import_memories", "--user", "grace", str(folder))

    assert "unknown format version 99" in str(caught.value) and "manifest.json" in str(caught.value)
    assert database_dump() == before


def test_unknown_users_are_refused(tmp_path):
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        run("export_memories", "--user", "nobody", "--output", str(tmp_path / "x.tar.gz"))
