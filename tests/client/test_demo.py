"""`continuity demo`: the real command in a subprocess, with HOME and the temporary folder
pointed at test folders. It tells the two-agent story and leaves both as it found them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.client.helpers import ROOT, client_env

DEMO_TIMEOUT = 300  # a generous ceiling for a loaded machine, not a speed claim


def tree(folder: Path) -> list[tuple[str, int]]:
    return sorted(
        (str(path.relative_to(folder)), path.stat().st_mtime_ns) for path in folder.rglob("*")
    )


def test_the_demo_tells_the_story_and_leaves_home_and_temp_untouched(tmp_path):
    home, temp = tmp_path / "home", tmp_path / "tmp"
    (home / ".continuity").mkdir(parents=True)
    (home / ".continuity" / "config.json").write_text('{"url": "http://example.invalid"}')
    temp.mkdir()
    before = tree(home)

    result = subprocess.run(
        [sys.executable, "-m", "continuity_client", "demo"],
        capture_output=True, text=True, timeout=DEMO_TIMEOUT, cwd=home,
        env=client_env(
            home, TMPDIR=str(temp), PYTHONPATH=str(ROOT),
            DATABASE_URL="postgres://someone:secret@real-store.invalid/continuity",
        ),
    )  # fmt: skip

    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    (store,) = [Path(line.removeprefix("Store: ")) for line in lines if line.startswith("Store: ")]
    assert store.parent == temp.resolve() and store.name.startswith("continuity-demo-")
    fact = "“The release branch is cut every Thursday at 15:00 UTC.”"
    assert f"Agent A remembers: {fact}" in lines
    assert (
        "Agent A hands off task demo:release-notes: “Draft the release notes for Thursday's cut.”"
        in lines
    )
    assert f"Agent B recalls: {fact}" in lines
    assert (
        "Agent B resumes task demo:release-notes: “Draft the release notes for Thursday's cut.”"
        in lines
    )
    assert "  next: Write the notes" in lines
    assert tree(home) == before
    assert not store.exists() and not list(temp.glob("continuity-demo-*"))


@pytest.mark.django_db
def test_the_demo_command_refuses_a_store_that_is_not_a_throw_away_one(django_user_model):
    with pytest.raises(CommandError, match="throw-away store"):
        call_command("demo")
    assert not django_user_model.objects.exists()
