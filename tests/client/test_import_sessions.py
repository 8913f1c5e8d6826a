"""`continuity import-sessions`: transcripts already on disk, sent through the capture endpoint
the Stop hooks use, against a live server (batches processed inline, as Celery runs eager)."""

from __future__ import annotations

import json
import os
import time

import pytest

from capture.models import CaptureBatch, CaptureThread, ConversationEvent
from tests.client.conftest import SHOP
from tests.client.helpers import continuity, git_checkout

pytestmark = pytest.mark.django_db(transaction=True)

CLAUDE_SESSION = "5a1f0c2e-7b3d-4e8a-9c1f-2d4e6a8b0c11"
CODEX_SESSION = "019a7c3e-1f2a-7b4c-8d9e-0a1b2c3d4e5f"


def claude_session(home, cwd, session=CLAUDE_SESSION, words="the shop tests run with pytest"):
    folder = home / ".claude" / "projects" / str(cwd).replace("/", "-").replace(".", "-")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    lines = [
        {"type": "user", "uuid": f"{session}-u", "parentUuid": None, "sessionId": session,
         "cwd": str(cwd), "timestamp": "2026-11-20T10:00:00.000Z",
         "message": {"role": "user", "content": f"Remember: {words}."}},
        {"type": "assistant", "uuid": f"{session}-a", "parentUuid": f"{session}-u",
         "sessionId": session, "cwd": str(cwd), "timestamp": "2026-11-20T10:00:05.000Z",
         "message": {"role": "assistant", "id": "msg_1", "type": "message",
                     "content": [{"type": "text", "text": "Noted."}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def codex_session(home, cwd, session=CODEX_SESSION):
    folder = home / ".codex" / "sessions" / "2026" / "11" / "21"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-11-21T09-00-00-{session}.jsonl"
    lines = [
        {"timestamp": "2026-11-21T08:00:00.000Z", "type": "session_meta",
         "payload": {"id": session, "timestamp": "2026-11-21T08:00:00.000Z", "cwd": str(cwd),
                     "originator": "codex_cli_rs", "cli_version": "0.60.0"}},
        {"timestamp": "2026-11-21T08:00:01.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": "Use ruff for linting here."}]}},
        {"timestamp": "2026-11-21T08:00:04.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": "Will do."}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def aged(path, days):
    then = time.time() - days * 86400
    os.utime(path, (then, then))


@pytest.fixture
def env(server):
    url, token = server
    return {"CONTINUITY_URL": url, "CONTINUITY_HOOK_TOKEN": token}


def test_import_sends_claude_sessions_and_their_events_appear(home, env, shop_checkout):
    path = claude_session(home, shop_checkout)

    run = continuity(home, "import-sessions", "claude", **env)

    assert run.returncode == 0, run.stderr
    assert f"[1/1] {path}: sent" in run.stdout
    thread = CaptureThread.objects.get()
    assert (thread.source, thread.external_id, thread.project_key) == (
        "claude_code", CLAUDE_SESSION, SHOP,
    )  # fmt: skip
    assert ConversationEvent.objects.filter(thread=thread).count() >= 2


def test_import_sends_codex_rollouts_under_codex_home(home, env, shop_checkout):
    codex_session(home, shop_checkout)

    run = continuity(home, "import-sessions", "codex", **env)

    assert run.returncode == 0, run.stderr
    thread = CaptureThread.objects.get()
    assert (thread.source, thread.external_id, thread.project_key) == ("codex", CODEX_SESSION, SHOP)
    assert ConversationEvent.objects.filter(thread=thread).exists()


def test_a_second_import_stores_nothing_new(home, env, shop_checkout):
    claude_session(home, shop_checkout)
    continuity(home, "import-sessions", "claude", **env)
    counts = (CaptureBatch.objects.count(), ConversationEvent.objects.count())

    again = continuity(home, "import-sessions", "claude", **env)

    assert again.returncode == 0 and "nothing new" in again.stdout
    assert (CaptureBatch.objects.count(), ConversationEvent.objects.count()) == counts


def test_without_the_watermarks_the_server_still_stores_no_event_twice(home, env, shop_checkout):
    claude_session(home, shop_checkout)
    continuity(home, "import-sessions", "claude", **env)
    events = ConversationEvent.objects.count()
    for mark in (home / ".continuity" / "state" / "watermarks").glob("*.json"):
        mark.unlink()

    again = continuity(home, "import-sessions", "claude", **env)

    assert again.returncode == 0 and ": sent" in again.stdout
    assert ConversationEvent.objects.count() == events


def test_a_dry_run_lists_the_files_and_sends_nothing(home, env, shop_checkout):
    path = claude_session(home, shop_checkout)

    run = continuity(home, "import-sessions", "claude", "--dry-run", **env)

    assert run.returncode == 0 and f"would send {path}" in run.stdout
    assert not CaptureBatch.objects.exists() and not CaptureThread.objects.exists()


def test_since_leaves_out_files_older_than_the_given_days(home, env, shop_checkout):
    old = claude_session(home, shop_checkout, session="old-session")
    aged(old, 30)
    claude_session(home, shop_checkout)

    run = continuity(home, "import-sessions", "claude", "--since", "7", **env)

    assert run.returncode == 0 and str(old) not in run.stdout
    assert list(CaptureThread.objects.values_list("external_id", flat=True)) == [CLAUDE_SESSION]


def test_project_keeps_only_sessions_of_that_project(home, env, shop_checkout, tmp_path):
    other = git_checkout(tmp_path / "work" / "blog", "https://github.com/acme/blog.git")
    claude_session(home, other, session="blog-session")
    claude_session(home, shop_checkout)

    by_key = continuity(home, "import-sessions", "claude", "--project", SHOP, "--dry-run", **env)
    by_path = continuity(home, "import-sessions", "claude", "--project", str(shop_checkout), **env)

    assert "blog-session" not in by_key.stdout and CLAUDE_SESSION in by_key.stdout
    assert by_path.returncode == 0
    assert list(CaptureThread.objects.values_list("external_id", flat=True)) == [CLAUDE_SESSION]


def test_a_missing_session_folder_is_a_clear_error(home, env):
    run = continuity(home, "import-sessions", "codex", **env)

    assert run.returncode == 2
    assert "no codex sessions here" in run.stderr and "is not a directory" in run.stderr


def test_a_refused_token_names_the_status_and_sends_nothing(home, server, shop_checkout):
    url, _ = server
    claude_session(home, shop_checkout)

    run = continuity(
        home, "import-sessions", "claude", CONTINUITY_URL=url,
        CONTINUITY_HOOK_TOKEN="cont_pat_" + "x" * 40,
    )  # fmt: skip

    assert run.returncode == 2
    assert "capture answered 401" in run.stderr and "check the hook token" in run.stderr
    assert not CaptureBatch.objects.exists()
