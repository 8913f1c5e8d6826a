"""`continuity status`: how this machine is wired, from local files only (no request).

One line for the server and where the hooks' token comes from, then per agent whether its
hooks are installed and the last error of each of its hooks that still stands, with what to
do, then doctor's line for each MCP entry (set up here, or found in a client's file).
Exits 1 when nothing is configured, an error stands or an MCP entry is wrong, else 0.
`continuity doctor` also asks the server.
"""

from __future__ import annotations

from continuity_client import config, install, trouble
from continuity_client.doctor import (
    codex_trust_verdict,
    describe_error,
    mcp_entries,
    source_name,
)


def run(out) -> int:
    settings = config.load()
    problems = 0
    entries = mcp_entries(settings["url"])
    if settings["url"] and settings["token"]:
        out.write(
            f"server: {settings['url']} (token from {source_name(settings['token_source'])})\n"
        )
    elif settings["url"] and entries:
        out.write(f"server: {settings['url']} (MCP clients only, no hooks' token)\n")
    else:
        problems += 1
        out.write("server: not set up (run `continuity setup claude|codex --url URL --token T`)\n")
    standing = trouble.recorded()
    for agent in install.TARGETS:
        events = install.installed(agent)
        done = sum(events.values())
        state = (
            "installed" if done == len(events) else "partly installed" if done else "not installed"
        )
        out.write(f"{agent}: hooks {state} ({install.TARGETS[agent][0]()})\n")
        if agent == "codex" and state == "installed":
            try:
                ok, line = codex_trust_verdict(install.codex_trust_states())
            except ValueError as error:
                ok, line = False, f"hooks: codex trust not known: {error}"
            problems += not ok
            out.write(f"  {line}\n")
        for entry in standing:
            if str(entry.get("hook", "")).startswith(f"{agent}-"):
                problems += 1
                out.write(f"  {describe_error(entry)}\n")
    for ok, line in entries:
        problems += not ok
        out.write(f"{line}\n")
    if not standing:
        out.write("no hook error stands\n")
    return 1 if problems else 0
