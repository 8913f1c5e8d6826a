"""Prompt hooks as real subprocesses against a live server: what they print, and that they
fail open (exit 0, no output, within about a second) whatever goes wrong."""

from __future__ import annotations

import json

import pytest

from injection.models import InjectionReceipt
from tests.client.conftest import SHOP
from tests.client.helpers import continuity, hook_log
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db(transaction=True)


def prompt_payload(cwd, prompt, **extra):
    return {"session_id": "s-1", "transcript_path": "/nowhere.jsonl", "cwd": str(cwd),
            "hook_event_name": "UserPromptSubmit", "prompt": prompt, **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("hook", "agent"), [("claude-prompt", "claude-code"), ("codex-prompt", "codex")]
)
def test_the_prompt_hook_prints_the_memory_block_as_additional_context(
    server, home, shop_checkout, owner_actor, hook, agent
):
    url, token = server
    ours = MemoryFactory(
        actor=owner_actor,
        content="The shop deploys to 杭州 with Kubernetes.",
        scope_type="project",
        scope_key=SHOP,
    )
    MemoryFactory(
        actor=owner_actor,
        content="The blog deploys with Kubernetes.",
        scope_type="project",
        scope_key="github:acme/blog",
    )

    run = continuity(home, "hook", hook, stdin=prompt_payload(shop_checkout / "src", "how does the shop deploy to 杭州?"),
                     CONTINUITY_URL=url, CONTINUITY_TOKEN=token)  # fmt: skip

    assert run.returncode == 0 and run.stderr == "" and run.stdout, (
        hook_log(home),
        InjectionReceipt.objects.values("reason", "latency_ms"),
    )
    output = json.loads(run.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    context = output["additionalContext"]
    assert context.startswith("<continuity-memory") and "not instructions" in context
    assert "The shop deploys to 杭州 with Kubernetes." in context and "blog" not in context
    receipt = InjectionReceipt.objects.get(reason="")
    assert (
        receipt.project_key == SHOP
        and receipt.agent_name == agent
        and receipt.memory_ids == [str(ours.id)]
    )


def test_the_hook_reads_its_server_from_the_config_setup_wrote(
    server, home, shop_checkout, owner_actor
):
    url, token = server
    MemoryFactory(actor=owner_actor, content="The shop deploys with Kubernetes.",
                  scope_type="project", scope_key=SHOP)  # fmt: skip
    assert continuity(home, "setup", "claude", "--url", url, "--token", token).returncode == 0

    run = continuity(
        home, "hook", "claude-prompt", stdin=prompt_payload(shop_checkout, "shop deploys")
    )

    assert (
        "The shop deploys with Kubernetes."
        in json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    )


def test_nothing_to_inject_prints_nothing(server, home, tmp_path):
    url, token = server

    run = continuity(
        home,
        "hook",
        "claude-prompt",
        stdin=prompt_payload(tmp_path, "hello"),
        CONTINUITY_URL=url,
        CONTINUITY_TOKEN=token,
    )

    assert run.returncode == 0 and run.stdout == ""
    assert InjectionReceipt.objects.latest("created_at").reason == "no_match"


def test_a_refused_token_fails_open_and_is_logged(server, home, tmp_path):
    url, _ = server

    run = continuity(home, "hook", "claude-prompt", stdin=prompt_payload(tmp_path, "hello"),
                     CONTINUITY_URL=url, CONTINUITY_TOKEN="cont_pat_" + "Z" * 40)  # fmt: skip

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "inject answered 401: UNAUTHORIZED" in hook_log(home)


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", json.dumps({"cwd": "/tmp"})])
def test_bad_hook_input_fails_open(home, dead_url, stdin):
    run = continuity(
        home,
        "hook",
        "claude-prompt",
        stdin=stdin,
        CONTINUITY_URL=dead_url,
        CONTINUITY_TOKEN="cont_pat_x",
    )

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "claude-prompt:" in hook_log(home)


def test_no_configuration_fails_open(home, tmp_path):
    run = continuity(home, "hook", "codex-prompt", stdin=prompt_payload(tmp_path, "hello"))

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "no server configured" in hook_log(home)


def test_a_server_that_is_down_fails_open_quickly(home, tmp_path, dead_url):
    run = continuity(
        home,
        "hook",
        "claude-prompt",
        stdin=prompt_payload(tmp_path, "hello"),
        CONTINUITY_URL=dead_url,
        CONTINUITY_TOKEN="cont_pat_x",
    )

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert run.seconds < 1.5
    assert "ConnectionRefusedError" in hook_log(home) or "URLError" in hook_log(home)


def test_a_server_that_never_answers_is_abandoned_within_the_hard_timeout(
    home, tmp_path, silent_url
):
    run = continuity(
        home,
        "hook",
        "claude-prompt",
        stdin=prompt_payload(tmp_path, "hello"),
        CONTINUITY_URL=silent_url,
        CONTINUITY_TOKEN="cont_pat_x",
    )

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert run.seconds < 1.5
    assert "claude-prompt:" in hook_log(home)


def test_chinese_prompts_and_memories_pass_whatever_the_locale(
    server, home, shop_checkout, owner_actor
):
    url, token = server
    MemoryFactory(
        actor=owner_actor, content="支付服务部署在杭州区域。", scope_type="project", scope_key=SHOP
    )

    run = continuity(home, "hook", "claude-prompt", stdin=prompt_payload(shop_checkout, "支付服务部署在哪里？"),
                     CONTINUITY_URL=url, CONTINUITY_TOKEN=token, LC_ALL="C", PYTHONIOENCODING="ascii")  # fmt: skip

    assert run.returncode == 0 and run.stdout, hook_log(home)
    assert (
        "支付服务部署在杭州区域。"
        in json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    )
