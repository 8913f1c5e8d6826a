"""Other memories an in-place action changed, drawn again where the page shows them.

An action answers with its own card, but it can change other memories too: confirming a
disputed memory supersedes the one it contradicts, which Review shows beside it, and a
conflict's answer archives or supersedes a memory Search may show. Every change records an
event, so the memories with events newer than the mark taken before the action (less the
one answered in place) are announced by `HX-Trigger: memory-changed-<id>`; each card and
row of such a memory listens for its own event and fetches itself again
(`templates/memories/_card.html`, `_row.html`). A card of the *same* memory shown twice is
not refreshed this way (it would race the answer's own swap): its stale buttons are
refused by `memory_act`'s state check instead.
"""

from __future__ import annotations

from django.http import HttpResponse
from django_htmx.http import trigger_client_event

from memories.models import MemoryEvent

MAX_ANNOUNCED = 20  # an action touches a handful; a burst of agent writes is not replayed


def event_mark(user) -> int:
    """The owner's newest event id, taken before an action."""
    newest = MemoryEvent.objects.filter(owner=user).order_by("-pk").values_list("pk", flat=True)
    return newest.first() or 0


def changed_since(user, mark: int, *, besides=()) -> list[str]:
    """The ids of the owner's memories with an event after `mark`, less `besides`."""
    skip = {str(pk) for pk in besides}
    ids = (
        MemoryEvent.objects.filter(owner=user, pk__gt=mark)
        .order_by("pk")
        .values_list("memory_id", flat=True)[: MAX_ANNOUNCED * 4]
    )
    found = list(dict.fromkeys(str(pk) for pk in ids if str(pk) not in skip))
    return found[:MAX_ANNOUNCED]


def announce_changed(response: HttpResponse, user, mark: int, *, besides=()) -> HttpResponse:
    for memory_id in changed_since(user, mark, besides=besides):
        trigger_client_event(response, f"memory-changed-{memory_id}")
    return response
