"""The numbers on the dashboard's tabs, for every page (a context processor) and for the
counts fragment that pages re-fetch after an action."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from accounts.selectors import usable_tokens
from capture.selectors import pending_count
from dashboard.cache import per_generation
from dashboard.review import open_proposals_count, review_memory_count
from handoff.selectors import handoffs_for_owner
from memories.selectors import archive_memories, core_memories, project_memories


def tab_counts(user) -> dict[str, int]:
    """The numbers on the tabs (`GET /counts/` sends them again after `counts-changed`)."""
    counts = per_generation(
        user,
        "memory-counts",
        lambda: {
            "core": core_memories(user).count(),
            "projects": sum(part.count() for part in project_memories(user)),
            "review": review_memory_count(user),
            "archive": sum(part.count() for part in archive_memories(user)),
        },
    )
    return {
        **counts,
        # Review also counts open proposals, which change without a memory event.
        "review": counts["review"] + open_proposals_count(user),
        "tokens": usable_tokens(user).count(),
        "handoffs": handoffs_for_owner(owner=user, state="active").count(),
        "inbox": pending_count(user),
    }


def tab_counts_context(request: HttpRequest) -> dict:
    """TEMPLATES context processor: `counts` for a signed-in owner, computed only when a
    template reads it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"counts": SimpleLazyObject(lambda: tab_counts(user))}
