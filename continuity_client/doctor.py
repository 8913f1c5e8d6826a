"""`continuity doctor`: is this machine wired to a working server?

Checks, in order: a server and token are configured (a server alone when only MCP clients
are set up); the server answers /health; the token is accepted (/api/v1/capabilities) and
has the scopes the hooks need; which agents have the hooks installed (and, for Codex,
trusted); per MCP client set up here or holding an entry, that the entry is there and points
at the saved server; per environment variable such entries take their token from (Codex,
Gemini CLI), that it is set and the server accepts it; no hook's last error still stands
(trouble.py); every watermark file is readable. Prints one line per check and exits 1 when
any check failed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from continuity_client import (
    clients,
    codex_app,
    codex_trust,
    config,
    http,
    install,
    mcp_install,
    trouble,
)
from continuity_client.token_check import (
    MCP_SCOPES,
    TokenProblem,
    missing_scopes_advice,
    token_check,
)


def run(out) -> int:
    results: list[tuple[bool, str]] = []
    settings = config.load()
    mcp_lines = mcp_entries(settings["url"])
    hooks_lines, any_hooks = _hooks(mcp_only=bool(mcp_lines))
    # With no hooks installed, an exported CONTINUITY_TOKEN is the MCP clients' token (the
    # variable Codex's entry names), checked below for what MCP needs, not the hooks' scopes.
    mcp_token_only = settings["token_source"] == "CONTINUITY_TOKEN" and not any_hooks
    if settings["url"] and settings["token"] and not (mcp_token_only and mcp_lines):
        results.append((True, f"config: server {settings['url']}"))
        results += _server(settings)
    elif settings["url"] and mcp_lines and not any_hooks:
        results.append((True, f"config: server {settings['url']} (MCP clients only, no hooks)"))
        results += _health(settings["url"])
    else:
        results.append(
            (False, f"config: no server or token (run `continuity setup`; {config.config_path()})")
        )
    results += hooks_lines + mcp_lines + (mcp_tokens(settings["url"]) if settings["url"] else [])
    results += _last_errors()
    results += _watermarks()
    for ok, message in results:
        out.write(f"[{'ok' if ok else 'FAIL'}] {message}\n")
    failed = sum(1 for ok, _ in results if not ok)
    out.write("all checks passed\n" if not failed else f"{failed} check(s) failed\n")
    return 1 if failed else 0


def _health(url: str) -> list[tuple[bool, str]]:
    try:
        health = http.call("GET", f"{url}/health", timeout=5)
    except OSError as error:
        return [(False, f"server: not reachable ({error})")]
    status = health.body.get("status") if isinstance(health.body, dict) else None
    return [(health.status == 200, f"server: /health answered {health.status} ({status})")]


def _server(settings: dict) -> list[tuple[bool, str]]:
    results = _health(settings["url"])
    if not results[0][0] and "not reachable" in results[0][1]:
        return results
    try:
        check = token_check(settings["url"], settings["token"])
    except TokenProblem as problem:
        return [*results, (False, f"token: {problem}")]
    message = (
        f"token: valid for agent {check.agent_name!r}, scopes {', '.join(check.scopes)}"
        f" (from {source_name(settings['token_source'])})"
    )
    if check.missing:
        return [*results, (False, f"{message}; {missing_scopes_advice(check)}")]
    return [*results, (True, message)]


def source_name(source: str) -> str:
    return "the saved config" if source == "config" else f"${source}"


def mcp_entries(saved_url: str) -> list[tuple[bool, str]]:
    """One line per client set up here or whose file holds Continuity's entry."""
    results = []
    recorded = install.saved_clients()
    for name in clients.CLIENTS:
        path, found, problem = mcp_install.state(name)
        if problem:
            if name in recorded:  # another tool's file setup never touched is not ours to judge
                results.append((False, f"mcp: {name}: {path} {problem}"))
        elif found is None:
            if name in recorded:
                results.append((False, f"mcp: {name} has no '{clients.SERVER_NAME}' entry in "
                                f"{path} any more (run `continuity setup {name}` again)"))  # fmt: skip
        else:
            results.append(_entry_verdict(name, path, clients.entry_target(found), saved_url))
    return results


def mcp_tokens(saved_url: str) -> list[tuple[bool, str]]:
    """One line per environment variable that entries pointing at the saved server take their
    token from (Codex, Gemini CLI): is it set here, and does the server accept it with at
    least memories:read? Such a client reads the variable when it starts; Codex, given none
    or a refused token, offers the model none of Continuity's tools and the turn goes on."""
    readers: dict[str, list[str]] = {}
    for name in clients.CLIENTS:
        _, found, problem = mcp_install.state(name)
        if found and not problem and clients.entry_target(found).rstrip("/") == f"{saved_url}/mcp":
            if variable := clients.token_variable(found):
                readers.setdefault(variable, []).append(name)
    results = []
    for variable, names in readers.items():
        who, token = ", ".join(names), os.environ.get(variable, "").strip()
        label = f"mcp: ${variable} (read by {who})"
        if not token:
            results.append((False, f"{label} is not set here: export {variable}=<token> in the "
                            f"shell that starts {who}, a token with {' and '.join(MCP_SCOPES)}"))  # fmt: skip
            continue
        try:
            check = token_check(saved_url, token)
        except TokenProblem as problem:
            results.append((False, f"{label}: {problem}"))
            continue
        message = f"{label}: valid for agent {check.agent_name!r}, scopes {', '.join(check.scopes)}"
        if MCP_SCOPES[0] not in check.scopes:
            results.append((False, f"{message}; {missing_scopes_advice(check, MCP_SCOPES)}"))
        else:
            results.append((True, message))
    return results


def _entry_verdict(name: str, path, target: str, saved_url: str) -> tuple[bool, str]:
    if target.startswith("stdio:"):
        manage = target.removeprefix("stdio:")
        exists = bool(manage) and Path(manage).is_file()
        return exists, f"mcp: {name} starts the stdio server {manage}" + (
            f" ({path})" if exists else f", which does not exist ({path})"
        )
    wanted = f"{saved_url}/mcp" if saved_url else ""
    if target.rstrip("/") == wanted:
        return True, f"mcp: {name} points at {target} ({path})"
    return False, (
        f"mcp: {name} points at {target or 'no URL'}, not the saved server's {wanted or '(none saved)'}"
        f" ({path}); run `continuity setup {name}` with the right --url"
    )


def _hooks(mcp_only: bool = False) -> tuple[list[tuple[bool, str]], bool]:
    results, any_installed = [], False
    for agent in install.TARGETS:
        events = install.installed(agent)
        path = install.TARGETS[agent][0]()
        done = [event for event, present in events.items() if present]
        any_installed = any_installed or bool(done)
        state = (
            "installed"
            if len(done) == len(events)
            else ("partly installed" if done else "not installed")
        )
        results.append((len(done) in (0, len(events)), f"hooks: {agent} {state} ({path})"))
    if install.installed("codex") and all(install.installed("codex").values()):
        results.append(_codex_trust())
    if not any_installed and not mcp_only:
        results.append(
            (False, "hooks: no agent has the hooks (run `continuity setup claude|codex`)")
        )
    return results, any_installed


def _codex_trust() -> tuple[bool, str]:
    """Codex's own answer when Codex is here (its app-server), else its config.toml read."""
    binary = codex_app.codex_binary()
    if binary:
        try:
            hooks = [hook for hook in codex_app.list_hooks(binary) if install.is_ours(hook)]
        except codex_app.AppServerError:
            hooks = []
        if hooks:
            return codex_trust_verdict({
                _event(hook["eventName"]): "disabled" if hook.get("enabled") is False
                else STATUS.get(hook["trustStatus"], "untrusted") for hook in hooks
            })  # fmt: skip
    try:
        states = install.codex_trust_states()
    except ValueError as error:
        return False, f"hooks: codex trust not known: {error}"
    return codex_trust_verdict(states)


# Codex's trustStatus → the states codex_trust reads from config.toml.
STATUS = {"trusted": "trusted", "managed": "trusted", "untrusted": "untrusted",
          "modified": "changed"}  # fmt: skip


def _event(name: str) -> str:
    return name[:1].upper() + name[1:]  # userPromptSubmit → UserPromptSubmit


def codex_trust_verdict(states: dict[str, str]) -> tuple[bool, str]:
    """(ok, line) for Codex's trust in the installed hooks, as doctor and status print it."""
    if all(state == "trusted" for state in states.values()):
        return True, f"hooks: codex trust recorded for {', '.join(states)} (Codex checks it)"
    why = {
        "untrusted": "has not trusted",
        "changed": "no longer trusts (the hook changed since it was trusted)",
        "disabled": "has disabled",
    }
    told = "; ".join(
        f"Codex {why[state]} {event}" for event, state in states.items() if state != "trusted"
    )
    return False, (
        f"hooks: codex skips them: {told}. To fix: {codex_trust.WHAT_TO_DO}, "
        f"{codex_trust.OR_LET_SETUP}"
    )


def _last_errors() -> list[tuple[bool, str]]:
    standing = trouble.recorded()
    if not standing:
        return [(True, "last errors: none standing")]
    return [(False, describe_error(entry)) for entry in standing]


def describe_error(entry: dict) -> str:
    """One hook's standing error as `doctor` and `status` print it."""
    return (
        f"last error: {entry.get('hook')} since {entry.get('at')}: {entry.get('problem')}; "
        f"to fix: {entry.get('fix')}"
    )


def _watermarks() -> list[tuple[bool, str]]:
    folder = config.state_dir() / "watermarks"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    broken = []
    for path in files:
        try:
            mark = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(mark, dict) or int(mark["offset"]) < 0:
                broken.append(path.name)
        except (OSError, ValueError, KeyError, TypeError):
            broken.append(path.name)
    if broken:
        return [(False, f"watermarks: unreadable: {', '.join(broken)} (delete them to resend)")]
    return [(True, f"watermarks: {len(files)} session(s) readable in {folder}")]
