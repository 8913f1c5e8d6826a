"""Stop hooks as real subprocesses against a live server: only lines new since the session's
watermark are sent, the watermark moves only after a 202, and every failure fails open.

The batches stay queued here (no worker consumes them), so the test reads exactly which raw
items each one carried; processing and replays end to end are in test_end_to_end.py."""

from __future__ import annotations

import json
import threading
import time

import pytest

from capture.models import CaptureBatch, CaptureThread
from continuity_client.hooks import MAX_BATCH_ITEMS, _written_size
from tests.client.conftest import SHOP
from tests.client.helpers import continuity, hook_log

pytestmark = pytest.mark.django_db(transaction=True)

SESSION = "0b8c6a1e-5f2d-4c1a-9e7b-3d2f1a0c9e88"


@pytest.fixture(autouse=True)
def batches_stay_queued():
    from continuity.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager


def line(index: int, role: str = "user", text: str | None = None) -> str:
    content = text or f"第 {index} 行: message {index}"
    return json.dumps({"type": role, "uuid": f"{role[0]}-{index}", "sessionId": SESSION,
                       "message": {"role": role, "content": content}}, ensure_ascii=False) + "\n"  # fmt: skip


def stop_payload(transcript, cwd, session=SESSION):
    return {"session_id": session, "transcript_path": str(transcript) if transcript else None, "cwd": str(cwd),
            "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "Done."}  # fmt: skip


def watermark(home):
    files = list((home / ".continuity" / "state" / "watermarks").glob("*.json"))
    return json.loads(files[0].read_text()) if files else None


def sent_items() -> list[list[str]]:
    return [
        [item["uuid"] for item in batch.items]
        for batch in CaptureBatch.objects.order_by("created_at")
    ]


def test_the_stop_hook_sends_complete_new_lines_and_moves_the_watermark(
    server, home, shop_checkout, tmp_path
):
    url, token = server
    transcript = tmp_path / "session.jsonl"
    complete = line(1) + line(2, "assistant") + "\n" + "not json\n" + line(3)
    transcript.write_text(
        complete + line(4)[:-10], encoding="utf-8"
    )  # the last line is still being written

    run = continuity(
        home,
        "hook",
        "claude-stop",
        stdin=stop_payload(transcript, shop_checkout),
        CONTINUITY_URL=url,
        CONTINUITY_TOKEN=token,
    )

    assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), hook_log(home)
    assert sent_items() == [["u-1", "a-2", "u-3"]]
    thread = CaptureThread.objects.get()
    assert (thread.source, thread.external_id, thread.project_key, thread.workspace) == (
        "claude_code",
        SESSION,
        SHOP,
        str(shop_checkout),
    )
    mark = watermark(home)
    assert (
        mark["offset"] == len(complete.encode())
        and mark["lines"] == 5
        and mark["session_id"] == SESSION
    )


def test_the_next_stop_sends_only_what_was_added(server, home, shop_checkout, tmp_path):
    url, token = server
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(line(1) + line(2, "assistant"), encoding="utf-8")
    env = {"CONTINUITY_URL": url, "CONTINUITY_TOKEN": token}
    continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout), **env)
    with open(transcript, "a", encoding="utf-8") as file:
        file.write(line(3) + line(4, "assistant"))

    continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout), **env)
    continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout), **env)

    assert sent_items() == [["u-1", "a-2"], ["u-3", "a-4"]]
    assert watermark(home)["lines"] == 4


def test_a_long_transcript_goes_in_bounded_batches(server, home, shop_checkout, tmp_path):
    url, token = server
    transcript = tmp_path / "long.jsonl"
    transcript.write_text(
        "".join(line(index) for index in range(MAX_BATCH_ITEMS + 20)), encoding="utf-8"
    )

    continuity(
        home,
        "hook",
        "claude-stop",
        stdin=stop_payload(transcript, shop_checkout),
        CONTINUITY_URL=url,
        CONTINUITY_TOKEN=token,
    )

    assert [len(items) for items in sent_items()] == [MAX_BATCH_ITEMS, 20]
    assert watermark(home)["lines"] == MAX_BATCH_ITEMS + 20


def test_a_truncated_transcript_is_read_again_from_the_start(server, home, shop_checkout, tmp_path):
    url, token = server
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(line(1) + line(2) + line(3), encoding="utf-8")
    env = {"CONTINUITY_URL": url, "CONTINUITY_TOKEN": token}
    continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout), **env)
    transcript.write_text(line(9), encoding="utf-8")

    continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout), **env)

    assert sent_items() == [["u-1", "u-2", "u-3"], ["u-9"]]


def test_a_refused_batch_leaves_the_watermark_where_it_was(server, home, shop_checkout, tmp_path):
    url, _ = server
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(line(1), encoding="utf-8")

    run = continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout),
                     CONTINUITY_URL=url, CONTINUITY_TOKEN="cont_pat_" + "R" * 40)  # fmt: skip

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert watermark(home) is None and CaptureBatch.objects.count() == 0
    assert "capture answered 401" in hook_log(home)


def test_a_server_that_is_down_fails_open_and_keeps_the_watermark(
    home, shop_checkout, tmp_path, dead_url
):
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(line(1), encoding="utf-8")

    run = continuity(
        home,
        "hook",
        "claude-stop",
        stdin=stop_payload(transcript, shop_checkout),
        CONTINUITY_URL=dead_url,
        CONTINUITY_TOKEN="cont_pat_x",
    )

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "") and run.seconds < 1.5
    assert watermark(home) is None


def test_a_missing_transcript_file_fails_open(home, tmp_path, dead_url):
    run = continuity(
        home,
        "hook",
        "claude-stop",
        stdin=stop_payload(tmp_path / "gone.jsonl", tmp_path),
        CONTINUITY_URL=dead_url,
        CONTINUITY_TOKEN="cont_pat_x",
    )

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "") and run.seconds < 1.5
    assert "timed out waiting for the transcript" in hook_log(home)
    assert watermark(home) is None


def test_the_hook_waits_for_a_transcript_the_agent_has_not_created_yet(tmp_path):
    # The agent can start its Stop hook a few milliseconds before it creates a new
    # session's transcript file: the hook waits for it while it has time to send.
    transcript = tmp_path / "late.jsonl"
    writer = threading.Timer(0.1, transcript.write_text, args=(line(1),),
                             kwargs={"encoding": "utf-8"})  # fmt: skip
    writer.start()
    try:
        size = _written_size(str(transcript), time.monotonic() + 5.0)
    finally:
        writer.join()
    assert size == len(line(1).encode("utf-8"))

    with pytest.raises(TimeoutError, match="timed out waiting for the transcript"):
        _written_size(str(tmp_path / "never.jsonl"), time.monotonic() + 0.5)


def test_codex_stop_sends_the_rollout_as_codex_and_skips_a_null_transcript(
    server, home, shop_checkout, tmp_path
):
    url, token = server
    rollout = tmp_path / "rollout-2026-11-29T10-00-00-abc.jsonl"
    rollout.write_text(line(1) + line(2, "assistant"), encoding="utf-8")
    env = {"CONTINUITY_URL": url, "CONTINUITY_TOKEN": token}

    nothing = continuity(
        home, "hook", "codex-stop", stdin=stop_payload(None, shop_checkout, "codex-1"), **env
    )
    sent = continuity(
        home, "hook", "codex-stop", stdin=stop_payload(rollout, shop_checkout, "codex-1"), **env
    )

    assert nothing.returncode == sent.returncode == 0 and nothing.stdout == sent.stdout == ""
    assert CaptureThread.objects.get().source == "codex" and sent_items() == [["u-1", "a-2"]]


def test_an_exported_mcp_token_does_not_replace_the_token_setup_saved(
    server, make_token, home, shop_checkout, tmp_path
):
    url, hook_token = server
    _, mcp_token = make_token("mcp-only", scopes=["memories:read"])
    assert continuity(home, "setup", "claude", "--url", url, "--token", hook_token).returncode == 0
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(line(1), encoding="utf-8")

    # Claude Code and Codex pass their environment on to hooks, MCP configs' variable too.
    run = continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout),
                     CONTINUITY_TOKEN=mcp_token)  # fmt: skip

    assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), hook_log(home)
    assert sent_items() == [["u-1"]] and "403" not in hook_log(home)


def test_the_hooks_own_variable_wins_over_the_saved_token(
    server, make_token, home, shop_checkout, tmp_path
):
    url, hook_token = server
    _, reader = make_token("reader", scopes=["memories:read"])
    assert continuity(home, "setup", "claude", "--url", url, "--token", hook_token).returncode == 0
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(line(1), encoding="utf-8")

    run = continuity(home, "hook", "claude-stop", stdin=stop_payload(transcript, shop_checkout),
                     CONTINUITY_HOOK_TOKEN=reader)  # fmt: skip

    assert run.returncode == 0 and CaptureBatch.objects.count() == 0
    assert "capture answered 403" in hook_log(home)
