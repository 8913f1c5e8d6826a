"""What this server offers the calling token: one answer for both agent doors.

`GET /api/v1/capabilities` and the `memory_capabilities` tool both return `capabilities()`;
it spans the apps (retrieval channels, the memory contract's bounds and defaults, the
token's rate limit), so it lives on the top floor.
"""

from __future__ import annotations

from django.conf import settings

from accounts.ratelimit import rate_limit_per_minute
from foundation.actors import Actor
from memories import contract, retrieval


def capabilities(actor: Actor) -> dict:
    """The profile, version and retrieval channels of this server, the limits every call is
    held to, and what the calling token is: its agent name, scopes, projects and expiry."""
    token = actor.token
    return {
        "profile": settings.CONTINUITY_PROFILE,
        "version": settings.VERSION,
        "agent_name": token.agent_name,
        "scopes": sorted(token.scopes),
        "allowed_projects": list(token.allowed_projects),
        "expires_at": token.expires_at.isoformat(),
        "channels": list(retrieval.available_channels()),
        "limits": {
            "max_content_chars": contract.MAX_CONTENT_CHARS,
            "recall_max_limit": contract.RECALL_MAX_LIMIT,
            "recall_default_limit": contract.RECALL_DEFAULT_LIMIT,
            "history_max_limit": contract.HISTORY_MAX_LIMIT,
            "token_budget": {
                "min": contract.MIN_TOKEN_BUDGET,
                "max": contract.MAX_TOKEN_BUDGET,
                "context_default": contract.CONTEXT_DEFAULT_BUDGET,
                "bootstrap_default": contract.BOOTSTRAP_DEFAULT_BUDGET,
            },
            "context_max_memories": contract.CONTEXT_MAX_MEMORIES,
            "checkpoint_max_memories": contract.CHECKPOINT_MAX_MEMORIES,
            "max_tags": contract.MAX_TAGS,
            "max_retrieval_hints": contract.MAX_HINTS,
            "rate_limit_per_minute": rate_limit_per_minute(),
        },
    }
