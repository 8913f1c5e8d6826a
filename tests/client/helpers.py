"""Run the installed `continuity` script as the agents do: a real subprocess, with HOME,
CODEX_HOME and the state directory pointed at a test folder."""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".venv" / "bin" / "continuity"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def client_env(home: Path, **extra: str) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CONTINUITY_", "CODEX_"))
    }
    return env | {"HOME": str(home), "CODEX_HOME": str(home / ".codex")} | extra


def continuity(
    home: Path, *args: str, stdin: str | dict = "", timeout: float = 30, **env: str
) -> Run:
    data = json.dumps(stdin, ensure_ascii=False) if isinstance(stdin, dict) else stdin
    started = time.monotonic()
    result = subprocess.run(
        [str(SCRIPT), *args], input=data, capture_output=True, text=True, timeout=timeout,
        env=client_env(home, **env), cwd=home,
    )  # fmt: skip
    return Run(result.returncode, result.stdout, result.stderr, time.monotonic() - started)


def git_checkout(path: Path, remote: str | None) -> Path:
    """A fabricated checkout: a .git folder whose config names `origin`."""
    (path / ".git").mkdir(parents=True)
    lines = ["[core]", "\tbare = false"]
    if remote:
        lines += [
            '[remote "origin"]',
            f"\turl = {remote}",
            "\tfetch = +refs/heads/*:refs/remotes/origin/*",
        ]
    (path / ".git" / "config").write_text("\n".join(lines) + "\n")
    return path


def hook_log(home: Path) -> str:
    path = home / ".continuity" / "state" / "hook.log"
    return path.read_text() if path.exists() else ""


def save_config(home: Path, url: str, token: str) -> None:
    """The config `continuity setup` writes, for tests of what happens with one setup would
    refuse (a revoked token, a server that went away)."""
    folder = home / ".continuity"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"url": url, "token": token}))


def codex_app_server(codex: str, codex_home: Path, *calls: tuple[str, dict]) -> list[dict]:
    """Codex's own answers to `calls` (JSON-RPC over `codex app-server`'s stdio), in order:
    what Codex itself says about its hooks, independent of Continuity's client."""
    process = subprocess.Popen(
        [codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env=os.environ | {"CODEX_HOME": str(codex_home)},
        cwd=codex_home,
    )  # fmt: skip
    messages = [("initialize", {"clientInfo": {"name": "tests", "version": "1"}}), *calls]
    try:
        answers = []
        for number, (method, params) in enumerate(messages, 1):
            process.stdin.write(
                json.dumps({"id": number, "method": method, "params": params}) + "\n"
            )
            if number == 1:
                process.stdin.write(json.dumps({"method": "initialized"}) + "\n")
            process.stdin.flush()
            while (answer := json.loads(process.stdout.readline())).get("id") != number:
                continue
            answers.append(answer["result"])
        return answers[1:]
    finally:
        process.kill()
        process.wait()


def codex_trust_of(codex: str, codex_home: Path) -> dict[str, str]:
    """{trust key: Codex's trustStatus} of every hook Codex lists."""
    [listing] = codex_app_server(codex, codex_home, ("hooks/list", {"cwds": [str(codex_home)]}))
    return {
        hook["key"]: hook["trustStatus"] for entry in listing["data"] for hook in entry["hooks"]
    }
