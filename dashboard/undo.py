"""The offer to undo the owner's last action, as the dashboard shows it.

With htmx the card that answers the action carries the offer. A plain form post redirects
back, so the offer waits in the session for the page it returns to, once (like a message):
`{% undo_offer %}` (dashboard.templatetags.dashboard_undo) shows it there and drops it.
What undo does is `memories.services.undo`'s.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from foundation.views import safe_next

SESSION_KEY = "dashboard_undo"
DONE = {
    "confirm": gettext_lazy("Confirmed."),
    "lock": gettext_lazy("Locked."),
    "unlock": gettext_lazy("Unlocked."),
    "archive": gettext_lazy("Archived."),
    "restore": gettext_lazy("Restored."),
}


def undo_offer(request: HttpRequest, memory, event: int | None, action: str) -> dict | None:
    """What the undo form needs, or None when the action changed nothing."""
    if event is None:
        return None
    return {
        "memory_id": str(memory.pk),
        "event": event,
        "action": action,
        "excerpt": " ".join(memory.content.split())[:80],
        "next": safe_next(request),
    }


def bulk_undo_offer(request: HttpRequest, name: str, result) -> dict | None:
    """The offer after a bulk action: the events its done items recorded, or None (an
    undo, a delete or a dismissal has none; nor has an action that changed nothing)."""
    if result.action not in DONE:
        return None
    pairs = [f"{item.id}:{item.event}" for item in result.items if item.event is not None]
    if not pairs:
        return None
    return {
        "list": name, "pairs": pairs, "action": result.action, "count": len(pairs),
        "next": safe_next(request),
    }  # fmt: skip


def remember_offer(request: HttpRequest, offer: dict) -> None:
    request.session[SESSION_KEY] = offer


def take_offer(request: HttpRequest) -> dict | None:
    """The waiting offer, once, if it was made for this page (else it is dropped)."""
    offer = request.session.pop(SESSION_KEY, None) if hasattr(request, "session") else None
    if not isinstance(offer, dict):
        return None
    if offer.get("next") and offer["next"] != request.get_full_path():
        return None
    return offer


def done_text(offer: dict) -> str:
    return str(DONE.get(offer.get("action", ""), ""))
