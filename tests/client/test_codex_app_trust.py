"""With the real Codex CLI: `setup codex --trust` makes Codex trust the hooks (as Codex
itself then reports), and doctor's reading of Codex's trust agrees with Codex's own answer,
also after an install moved and the command changed. Needs Codex (`npm install
@openai/codex`; CONTINUITY_CODEX names the binary when it is not on PATH)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.client.helpers import codex_app_server, codex_trust_of, continuity

CODEX = os.environ.get("CONTINUITY_CODEX") or shutil.which("codex")
if not CODEX and os.environ.get("CONTINUITY_REQUIRE_CODEX", "") not in ("", "0"):
    # .ci/run installs the pinned Codex CLI and requires these tests: never a silent skip.
    raise RuntimeError("CONTINUITY_REQUIRE_CODEX is set but no Codex CLI was found")
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CODEX, reason="needs the Codex CLI (CONTINUITY_CODEX or PATH)"),
]


def test_setup_codex_trust_makes_codex_trust_the_hooks_and_keeps_other_records(server, home):
    url, token = server
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        '[hooks.state."/elsewhere/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:feed"\n'
    )

    run = continuity(home, "setup", "codex", "--url", url, "--token", token, "--trust",
                     CONTINUITY_CODEX=CODEX)  # fmt: skip
    doctor = continuity(home, "doctor", CONTINUITY_CODEX=CODEX, CONTINUITY_TOKEN=token)

    assert run.returncode == 0, run.stdout + run.stderr
    assert "Codex now trusts Continuity's hooks (stop, userPromptSubmit)" in run.stdout
    hooks_json = codex_home / "hooks.json"
    assert codex_trust_of(CODEX, codex_home) == {
        f"{hooks_json}:stop:0:0": "trusted",
        f"{hooks_json}:user_prompt_submit:0:0": "trusted",
    }
    config = (codex_home / "config.toml").read_text()
    assert 'trusted_hash = "sha256:feed"' in config
    # Codex rewrites config.toml when it records trust: the MCP entry setup wrote survives.
    assert "[mcp_servers.continuity]" in config and url in config
    assert doctor.returncode == 0 and "[ok] hooks: codex trust recorded" in doctor.stdout


def test_doctor_agrees_with_codex_after_an_install_moved(server, home):
    url, token = server
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": {
        event: [{"hooks": [{"type": "command", "command": f'"/old/bin/continuity" hook {hook}',
                            "timeout": 5}]}]
        for event, hook in (("Stop", "codex-stop"), ("UserPromptSubmit", "codex-prompt"))
    }}))  # fmt: skip
    # The user trusted the old install's hooks, as /hooks records it.
    [listing] = codex_app_server(CODEX, codex_home, ("hooks/list", {"cwds": [str(codex_home)]}))
    state = {hook["key"]: {"trusted_hash": hook["currentHash"]}
             for entry in listing["data"] for hook in entry["hooks"]}  # fmt: skip
    codex_app_server(CODEX, codex_home, ("config/batchWrite", {"edits": [
        {"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}]}))  # fmt: skip
    assert set(codex_trust_of(CODEX, codex_home).values()) == {"trusted"}

    continuity(home, "setup", "codex", "--url", url, "--token", token)
    from_file = continuity(home, "doctor", CONTINUITY_CODEX="off")  # reads config.toml
    from_codex = continuity(home, "doctor", CONTINUITY_CODEX=CODEX)

    assert set(codex_trust_of(CODEX, codex_home).values()) == {"modified"}
    for doctor in (from_file, from_codex):
        assert doctor.returncode == 1
        assert (
            "Codex no longer trusts (the hook changed since it was trusted) Stop" in doctor.stdout
        )
