"""The `continuity` console script.

    continuity hook claude-stop | claude-prompt | codex-stop | codex-prompt
    continuity setup claude | codex --url URL --token TOKEN [--trust]
    continuity uninstall claude | codex
    continuity doctor
    continuity status

The hook path is kept lean (no argparse, only what a hook imports), since agents start it
for every prompt.
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

    from continuity_client import codex_trust, doctor, install, status, trouble
    from continuity_client.token_check import TokenProblem, missing_scopes_advice, token_check

    parser = argparse.ArgumentParser(prog="continuity", description="Continuity on this machine.")
    commands = parser.add_subparsers(dest="command", required=True)
    hook = commands.add_parser("hook", help="run an agent hook (reads its JSON on stdin)")
    hook.add_argument(
        "name", choices=["claude-stop", "claude-prompt", "codex-stop", "codex-prompt"]
    )
    setup = commands.add_parser("setup", help="install the hooks and save the server address")
    setup.add_argument("agent", choices=sorted(install.TARGETS))
    setup.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    setup.add_argument("--token", required=True, help="an access token (cont_pat_...)")
    setup.add_argument(
        "--trust",
        action="store_true",
        help="codex only: also record your trust in the hooks through Codex, as /hooks does",
    )
    remove = commands.add_parser("uninstall", help="remove Continuity's hooks, keeping others")
    remove.add_argument("agent", choices=sorted(install.TARGETS))
    commands.add_parser("doctor", help="check server, token, hooks and watermarks")
    commands.add_parser("status", help="how this machine is wired, and hook errors to fix")
    args = parser.parse_args(argv)

    if args.command == "doctor":
        return doctor.run(sys.stdout)
    if args.command == "status":
        return status.run(sys.stdout)
    try:
        if args.command == "setup":
            # Refuse before writing anything: an unreadable hook file, a malformed argument,
            # a server that cannot be reached or a token the hooks could not work with.
            if args.trust and args.agent != "codex":
                raise install.SetupError("--trust is for codex: Claude Code runs hooks untrusted.")
            install.readable(args.agent)
            install.validate(args.url, args.token)
            url = args.url.rstrip("/")
            try:
                check = token_check(url, args.token)
            except TokenProblem as problem:
                raise install.SetupError(str(problem)) from None
            if check.missing:
                raise install.SetupError(missing_scopes_advice(check))
            saved = install.save_config(url, args.token)
            trouble.clear_all()  # a checked token replaces whatever the hooks tripped over
            path, changed = install.install(args.agent)
            print(f"Saved the server and token in {saved} (readable only by you).")
            print(
                f"Hooks in {path}: "
                + (
                    f"installed (backup: {changed})"
                    if changed and changed != str(path)
                    else "installed"
                    if changed
                    else "already installed, nothing changed"
                )
            )
            if args.trust:
                return _trust_codex()
            if args.agent == "codex":
                print(
                    "Codex runs a new or changed hook only once you trust it, and `codex exec` "
                    f"skips untrusted hooks silently: {codex_trust.WHAT_TO_DO}, "
                    f"{codex_trust.OR_LET_SETUP}. "
                    "`continuity doctor` checks it."
                )
            return 0
        path, changed = install.uninstall(args.agent)
        print(
            f"Hooks in {path}: "
            + (
                f"removed (backup: {changed})"
                if changed
                else "none of Continuity's found, nothing changed"
            )
        )
        return 0
    except install.SetupError as error:
        print(f"continuity: {error}", file=sys.stderr)
        return 2


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
