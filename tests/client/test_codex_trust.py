"""Codex runs a hook only once the user trusted it: `doctor` and `status` say whether Codex
has trusted Continuity's hooks, and what to do when it has not or no longer does. Here from
the records Codex keeps in its config.toml (CONTINUITY_CODEX=off: Codex is not asked, even
where it is installed); test_codex_app_trust.py checks that reading against Codex itself."""

from __future__ import annotations

import json
import re

import pytest

from tests.client.helpers import continuity

pytestmark = pytest.mark.django_db(transaction=True)


def trust_records(codex_home, records: dict[str, str]) -> None:
    """What Codex writes to config.toml when the user trusts hooks in /hooks: its records,
    with the file's other tables (the MCP entry setup wrote) kept, as Codex's upsert does."""
    path = codex_home / "config.toml"
    before = path.read_text() if path.exists() else ""
    kept = re.findall(r"^\[mcp_servers[^\n]*\n(?:[^\[\n][^\n]*\n|\n)*", before, re.M)
    lines = ['model = "o4"', "", "[hooks.state]"]
    for key, digest in records.items():
        lines += [f"[hooks.state.{json.dumps(key)}]", f"trusted_hash = {json.dumps(digest)}"]
    path.write_text("\n".join(lines) + "\n" + "".join(kept))


def keys(codex_home) -> dict[str, str]:
    hooks_json = codex_home / "hooks.json"
    return {
        "stop": f"{hooks_json}:stop:0:0",
        "user_prompt_submit": f"{hooks_json}:user_prompt_submit:0:0",
    }


def test_freshly_installed_codex_hooks_are_reported_untrusted_with_what_to_do(server, home):
    url, token = server

    setup = continuity(home, "setup", "codex", "--url", url, "--token", token)
    doctor = continuity(home, "doctor", CONTINUITY_CODEX="off")
    status = continuity(home, "status", CONTINUITY_CODEX="off")

    assert setup.returncode == 0 and "/hooks" in setup.stdout
    assert "[features] hooks = true" not in setup.stdout
    assert doctor.returncode == 1
    assert "[FAIL] hooks: codex skips them: Codex has not trusted Stop" in doctor.stdout
    assert "open /hooks, review and trust Continuity's Stop and UserPromptSubmit" in doctor.stdout
    assert status.returncode == 1 and "Codex has not trusted UserPromptSubmit" in status.stdout


def test_trust_recorded_by_codex_passes(server, home):
    url, token = server
    continuity(home, "setup", "codex", "--url", url, "--token", token)
    trust_records(
        home / ".codex", {key: "sha256:" + "a" * 64 for key in keys(home / ".codex").values()}
    )

    # Exported as setup says: Codex's MCP entry reads it, and doctor checks it.
    doctor = continuity(home, "doctor", CONTINUITY_CODEX="off", CONTINUITY_TOKEN=token)

    assert doctor.returncode == 0, doctor.stdout
    assert "[ok] hooks: codex trust recorded for Stop, UserPromptSubmit" in doctor.stdout


def test_a_changed_command_is_no_longer_trusted_until_trusted_again(server, home):
    url, token = server
    codex_home = home / ".codex"
    codex_home.mkdir()
    # Installed from another path, and trusted there.
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": '"/old/bin/continuity" hook codex-stop', "timeout": 5}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": '"/old/bin/continuity" hook codex-prompt', "timeout": 5}]}],
    }}))  # fmt: skip
    old = {key: f"sha256:{'b' * 63}{n}" for n, key in enumerate(keys(codex_home).values())}
    trust_records(codex_home, old)

    continuity(home, "setup", "codex", "--url", url, "--token", token)
    changed = continuity(home, "doctor", CONTINUITY_CODEX="off")
    trust_records(codex_home, {key: "sha256:" + "c" * 64 for key in old})  # trusted again
    again = continuity(home, "doctor", CONTINUITY_CODEX="off", CONTINUITY_TOKEN=token)

    assert changed.returncode == 1
    assert "Codex no longer trusts (the hook changed since it was trusted) Stop" in changed.stdout
    assert again.returncode == 0 and "[ok] hooks: codex trust recorded" in again.stdout


def test_a_hook_disabled_in_codex_is_reported(server, home):
    url, token = server
    continuity(home, "setup", "codex", "--url", url, "--token", token)
    stop, prompt = keys(home / ".codex").values()
    (home / ".codex" / "config.toml").write_text(
        f'[hooks.state."{stop}"]\ntrusted_hash = "sha256:{"d" * 64}"\nenabled = false\n'
        f'[hooks.state."{prompt}"]\ntrusted_hash = "sha256:{"e" * 64}"\n'
    )

    doctor = continuity(home, "doctor", CONTINUITY_CODEX="off")

    assert doctor.returncode == 1 and "Codex has disabled Stop" in doctor.stdout
    assert "UserPromptSubmit" not in doctor.stdout.split("codex skips them:")[1].split(".")[0]
