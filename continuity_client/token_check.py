"""Does this server accept this token, with the scopes the hooks need?

One check for `continuity setup` (which refuses a token that fails it, before writing
anything) and `continuity doctor` (which reports it). The server names a token's scopes at
/api/v1/capabilities, which needs no scope itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from continuity_client import http

# Capture (Stop hooks) writes; injection (prompt hooks) reads.
NEEDED_SCOPES = ("memories:read", "capture:write")
# An MCP client needs at least to read; it remembers with the second.
MCP_SCOPES = ("memories:read", "memories:write")


@dataclass(frozen=True)
class TokenCheck:
    agent_name: str
    scopes: tuple[str, ...]

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(scope for scope in NEEDED_SCOPES if scope not in self.scopes)


class TokenProblem(Exception):
    """The server could not be asked, or refused the token; the message says what to do."""


def token_check(url: str, token: str, timeout: float = 5) -> TokenCheck:
    try:
        reply = http.call("GET", f"{url}/api/v1/capabilities", token=token, timeout=timeout)
    except OSError as error:
        raise TokenProblem(
            f"cannot reach the server at {url} ({error}); check the URL and that the server "
            "is running (`python3 run.py serve`)."
        ) from None
    if reply.status in (401, 403):
        raise TokenProblem(
            f"the server refused the token ({reply.status}): it is wrong, revoked or expired; "
            "create a new one in the dashboard's Tokens tab."
        )
    if reply.status != 200 or not isinstance(reply.body, dict):
        raise TokenProblem(
            f"{url}/api/v1/capabilities answered {reply.status}: is {url} a Continuity server?"
        )
    scopes = reply.body.get("scopes")
    return TokenCheck(
        agent_name=str(reply.body.get("agent_name", "")),
        scopes=tuple(scopes) if isinstance(scopes, list) else (),
    )


def missing_scopes_advice(check: TokenCheck, needed: tuple[str, ...] = NEEDED_SCOPES) -> str:
    """What to do about a token without every scope the hooks (or an MCP client) need."""
    who = "the hooks need" if needed == NEEDED_SCOPES else "an MCP client needs at least"
    wanted = needed if needed == NEEDED_SCOPES else needed[:1]
    missing = [scope for scope in wanted if scope not in check.scopes]
    return (
        f"the token of agent {check.agent_name!r} lacks {', '.join(missing)} "
        f"(it has {', '.join(check.scopes) or 'no scopes'}); {who} "
        f"{' and '.join(wanted)}: create a token with "
        f"{'those scopes' if len(wanted) > 1 else 'that scope'}."
    )
