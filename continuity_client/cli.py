"""The `continuity` console script.

    continuity hook claude-stop | claude-prompt | codex-stop | codex-prompt
    continuity setup CLIENT --url URL --token TOKEN [--mcp-only] [--trust]
    continuity uninstall CLIENT [--mcp-only]
    continuity doctor
    continuity status
    continuity demo

The hook path is kept lean (no argparse, only what a hook imports), since agents start it
for every prompt. CLIENT is claude, codex (hooks and MCP), gemini, cursor, vscode, windsurf
or claude-desktop (MCP only); see clients.py.
"""

from __future__ import annotations

import sys
import time

USAGE = __doc__.split("\n\n")[1]


def main(argv: list[str] | None = None) -> int:
    started = time.monotonic()
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "hook":
        from continuity_client import hooks

        if argv[1] in hooks.HOOK_NAMES:
            return hooks.run(argv[1], started=started)
    return _commands(argv)


def _commands(argv: list[str]) -> int:
    import argparse

    from continuity_client import clients, demo, doctor, install, status

    parser = argparse.ArgumentParser(prog="continuity", description="Continuity on this machine.")
    commands = parser.add_subparsers(dest="command", required=True)
    hook = commands.add_parser("hook", help="run an agent hook (reads its JSON on stdin)")
    hook.add_argument(
        "name", choices=["claude-stop", "claude-prompt", "codex-stop", "codex-prompt"]
    )
    setup = commands.add_parser(
        "setup", help="connect a client: its MCP entry, and for claude and codex the hooks"
    )
    setup.add_argument("agent", choices=list(clients.CLIENTS))
    setup.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    setup.add_argument("--token", required=True, help="an access token (cont_pat_...)")
    setup.add_argument(
        "--mcp-only", action="store_true", help="claude, codex: the MCP entry without hooks"
    )
    setup.add_argument(
        "--trust",
        action="store_true",
        help="codex only: also record your trust in the hooks through Codex, as /hooks does",
    )
    remove = commands.add_parser(
        "uninstall", help="remove Continuity's MCP entry and hooks, keeping others"
    )
    remove.add_argument("agent", choices=list(clients.CLIENTS))
    remove.add_argument(
        "--mcp-only", action="store_true", help="claude, codex: keep the hooks installed"
    )
    commands.add_parser("doctor", help="check server, token, hooks, MCP entries and watermarks")
    commands.add_parser("status", help="how this machine is wired, and hook errors to fix")
    commands.add_parser("demo", help="two agents share a throw-away store (needs the checkout)")
    backfill = commands.add_parser(
        "import-sessions", help="send transcripts already on disk, as the Stop hooks would"
    )
    backfill.add_argument("agent", choices=["claude", "codex"])
    backfill.add_argument("--since", type=float, metavar="DAYS", help="only files changed since")
    backfill.add_argument("--project", metavar="KEY", help="only sessions of this project")
    backfill.add_argument("--dry-run", action="store_true", help="list what would be sent")
    args = parser.parse_args(argv)

    if args.command == "import-sessions":
        from continuity_client import importer

        return importer.run(args.agent, args.since, args.project, args.dry_run, sys.stdout)

    if args.command == "doctor":
        return doctor.run(sys.stdout)
    if args.command == "status":
        return status.run(sys.stdout)
    if args.command == "demo":
        return demo.run(sys.stdout)
    try:
        if args.command == "setup":
            return _setup(args)
        return _uninstall(args)
    except install.SetupError as error:
        print(f"continuity: {error}", file=sys.stderr)
        return 2


def _setup(args) -> int:
    from continuity_client import clients, codex_trust, install, mcp_install, trouble
    from continuity_client.token_check import (
        MCP_SCOPES,
        TokenProblem,
        missing_scopes_advice,
        token_check,
    )

    client = clients.CLIENTS[args.agent]
    hooks = client.hooks and not args.mcp_only
    # Refuse before writing anything: an unreadable hook or MCP file, a malformed argument,
    # a server that cannot be reached or a token the hooks could not work with.
    if args.trust and not (args.agent == "codex" and hooks):
        raise install.SetupError(
            "--trust is for codex: Claude Code runs hooks untrusted."
            if args.agent != "codex"
            else "--trust records trust in the hooks, which --mcp-only does not install."
        )
    if hooks:
        install.readable(args.agent)
    install.validate(args.url, args.token)
    url = args.url.rstrip("/")
    connection = mcp_install.local_connection(url, args.token)
    try:
        change = mcp_install.plan(args.agent, connection)
    except mcp_install.MCPConfigError as error:
        raise install.SetupError(str(error)) from None
    try:
        check = token_check(url, args.token)
    except TokenProblem as problem:
        raise install.SetupError(str(problem)) from None
    if hooks and check.missing:
        raise install.SetupError(missing_scopes_advice(check))
    if not hooks and MCP_SCOPES[0] not in check.scopes:
        raise install.SetupError(missing_scopes_advice(check, needed=MCP_SCOPES))

    if hooks:
        saved = install.save_config(url, args.token, args.agent)
        trouble.clear_all()  # a checked token replaces whatever the hooks tripped over
        print(f"Saved the server and token in {saved} (readable only by you).")
        path, changed = install.install(args.agent)
        print(f"Hooks in {path}: {_done(changed, path, 'installed', 'already installed')}")
    else:
        saved, saved_url = install.save_client(url, args.agent)
        if saved_url != url:
            print(
                f"Note: {saved} keeps the server {saved_url} (the hooks' server); "
                f"`continuity doctor` checks this entry against it."
            )
    written = mcp_install.apply(change)
    print(f"MCP entry '{clients.SERVER_NAME}' in {change.path}: "
          f"{_done(written, change.path, 'written', 'already set')}")  # fmt: skip
    if client.token_in_file:
        print(f"{change.path} holds the token, so it is readable only by you (mode 0600).")
    missing_mcp = [scope for scope in MCP_SCOPES if scope not in check.scopes]
    if missing_mcp:
        print(
            f"The token lacks {', '.join(missing_mcp)}: over MCP the agent can recall "
            "but not remember; a token with both memories scopes can do both."
        )
    print(client.note)
    if args.trust:
        return _trust_codex()
    if args.agent == "codex" and hooks:
        print(
            "Codex runs a new or changed hook only once you trust it, and `codex exec` "
            f"skips untrusted hooks silently: {codex_trust.WHAT_TO_DO}, "
            f"{codex_trust.OR_LET_SETUP}. "
            "`continuity doctor` checks it."
        )
    return 0


def _done(changed: str | None, path, did: str, already: str) -> str:
    """How a file fared: `changed` is the backup's path, the file's own (new), or None."""
    if not changed:
        return f"{already}, nothing changed"
    return did if changed == str(path) else f"{did} (backup: {changed})"


def _uninstall(args) -> int:
    from continuity_client import clients, install, mcp_install

    if clients.CLIENTS[args.agent].hooks and not args.mcp_only:
        path, changed = install.uninstall(args.agent)
        print(
            f"Hooks in {path}: "
            + (
                f"removed (backup: {changed})"
                if changed
                else "none of Continuity's found, nothing changed"
            )
        )
    try:
        path, changed = mcp_install.remove(args.agent)
    except mcp_install.MCPConfigError as error:
        raise install.SetupError(str(error)) from None
    install.forget_client(args.agent)
    print(
        f"MCP entry '{clients.SERVER_NAME}' in {path}: "
        + (f"removed (backup: {changed})" if changed else "none found, nothing changed")
    )
    return 0


def _trust_codex() -> int:
    """Record trust in Continuity's Codex hooks through Codex's own app-server, then report
    what Codex says afterwards (exit 1 and the manual way when it does not trust them)."""
    from continuity_client import codex_app, codex_trust, install

    binary = codex_app.codex_binary()
    if not binary:
        print(f"Codex not found on PATH (or CONTINUITY_CODEX): {codex_trust.WHAT_TO_DO}.")
        return 1
    try:
        hooks = codex_app.trust(binary, lambda hook: install.is_ours(hook))
    except codex_app.AppServerError as error:
        print(f"Could not record trust through Codex ({error}): {codex_trust.WHAT_TO_DO}.")
        return 1
    untrusted = [hook for hook in hooks if hook["trustStatus"] != "trusted"]
    if not hooks or untrusted:
        seen = ", ".join(f"{hook['key']}: {hook['trustStatus']}" for hook in untrusted)
        print(f"Codex does not trust the hooks ({seen or 'it lists none of them'}): "
              f"{codex_trust.WHAT_TO_DO}.")  # fmt: skip
        return 1
    events = ", ".join(sorted(hook["eventName"] for hook in hooks))
    print(f"Codex now trusts Continuity's hooks ({events}), recorded through Codex as /hooks does.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
