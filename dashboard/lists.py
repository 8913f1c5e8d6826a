"""The lists a bulk action runs over: every dashboard list of memories (the memory tabs,
Projects, Review's sections, Search) and compaction's proposals.

Each list is named (the bulk form carries the name and the list's filters), so "all N
matching this filter" is read again on the server from the same querysets the page
shows, never from ids the page sent. Reads only; the actions are `memories.services.bulk`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from uuid import UUID

from django.db.models import QuerySet
from django.http import QueryDict
from django.utils.translation import gettext_lazy, gettext_noop

from dashboard.review import bare_disputes, pending_compaction, quarantined_memories
from dashboard.selectors import selected_project
from foundation.actors import Actor
from foundation.errors import validation_error
from memories.contract import MAX_BULK_ITEMS
from memories.models import Kind, Memory, ReviewProposal, Status, Trust
from memories.selectors import (
    MemoryFilters,
    archive_memories,
    core_memories,
    inferred_memories,
    memories_for_owner,
    project_memories,
    recent_memories,
)

MEMORY, PROPOSAL = "memory", "proposal"
MAX_FILTER_QUERY_CHARS = 2000
EXCERPT_CHARS = 80
# Which actions each list offers (the services decide each item anyway).
LIVE_ACTIONS = ("confirm", "lock", "archive", "delete")
ARCHIVED_ACTIONS = ("restore", "delete")
EVERY_ACTION = ("confirm", "lock", "archive", "restore", "delete")
PROPOSAL_ACTIONS = ("dismiss",)


def search_filters(data: QueryDict) -> MemoryFilters:
    """Search's filters from a query string (the page's, or the bulk form's copy of it);
    enum values not in their choices are dropped."""

    def choices(name: str, allowed) -> tuple[str, ...]:
        return tuple(value for value in data.getlist(name) if value in allowed)

    return MemoryFilters(
        kind=choices("kind", Kind.values),
        trust=choices("trust", Trust.values),
        status=choices("status", Status.values),
        source_agent=data.get("agent", "").strip(),
        project=data.get("project", "").strip(),
        q=data.get("q", "").strip(),
        by_me=data.get("mine") == "1",
    )


def _project(actor: Actor, params: QueryDict) -> list[QuerySet]:
    chosen = selected_project(actor.user, params.get("project", ""))
    return [part.filter(scope_key=chosen) for part in project_memories(actor.user)]


@dataclass(frozen=True)
class BulkList:
    kind: str
    actions: tuple[str, ...]
    parts: Callable[[Actor, QueryDict], list[QuerySet]]
    field: str = "updated_at"


LISTS: dict[str, BulkList] = {
    "core": BulkList(MEMORY, LIVE_ACTIONS, lambda a, p: [core_memories(a.user)]),
    "recent": BulkList(MEMORY, LIVE_ACTIONS, lambda a, p: recent_memories(a.user)),
    "archive": BulkList(MEMORY, ARCHIVED_ACTIONS, lambda a, p: archive_memories(a.user)),
    "projects": BulkList(MEMORY, LIVE_ACTIONS, _project),
    "search": BulkList(
        MEMORY, EVERY_ACTION, lambda a, p: [memories_for_owner(a, search_filters(p))]
    ),
    "review-inferred": BulkList(MEMORY, LIVE_ACTIONS, lambda a, p: [inferred_memories(a.user)]),
    "review-disputed": BulkList(MEMORY, LIVE_ACTIONS, lambda a, p: [bare_disputes(a.user)]),
    "review-quarantined": BulkList(
        MEMORY, LIVE_ACTIONS, lambda a, p: [quarantined_memories(a.user)]
    ),
    "review-proposals": BulkList(
        PROPOSAL, PROPOSAL_ACTIONS, lambda a, p: [pending_compaction(a.user)], "created_at"
    ),
}


def bulk_list(name: str) -> BulkList:
    if name not in LISTS:
        raise validation_error(gettext_noop("list is not one the dashboard shows."), field="list")
    return LISTS[name]


def bulk_form_of(value) -> str:
    """The id of a list's bulk form a card was shown in (so a card re-rendered after its
    own action keeps its checkbox), if it names one of ours."""
    value = value if isinstance(value, str) else ""
    return value if value.startswith("bulk-") and value[5:] in LISTS else ""


def filter_params(query: str) -> QueryDict:
    """The list's filters, as the bulk form carries them (the page's query string)."""
    if not isinstance(query, str) or len(query) > MAX_FILTER_QUERY_CHARS:
        raise validation_error(gettext_noop("filter is too long."), field="filter")
    return QueryDict(query.lstrip("?"))


def list_total(actor: Actor, name: str, params: QueryDict) -> int:
    """How many items the list holds under its filters (what "all N matching" counts)."""
    return sum(part.count() for part in bulk_list(name).parts(actor, params))


def matching_ids(
    actor: Actor, name: str, params: QueryDict, *, limit: int = MAX_BULK_ITEMS
) -> list[str]:
    """The ids of the newest `limit` items of the list under its filters, newest first
    (each part read in its index order, like the page)."""
    found = bulk_list(name)
    rows = []
    for part in found.parts(actor, params):
        rows += part.order_by(f"-{found.field}", "-pk").values_list(found.field, "pk")[:limit]
    rows.sort(reverse=True, key=lambda row: (row[0], str(row[1])))
    return [str(pk) for _, pk in rows[:limit]]


def item_labels(actor: Actor, kind: str, ids: list[str]) -> dict[str, str]:
    """A short excerpt naming each of the owner's items among `ids` (a deleted memory
    keeps its excerpt in the answer; an id not of the owner's gets none)."""
    if kind == PROPOSAL:
        return _proposal_labels(actor, ids)
    wanted = [pk for pk in ids if _is_uuid(pk)]
    rows = Memory.objects.filter(owner=actor.user, pk__in=wanted).values_list("pk", "content")
    return {str(pk): _excerpt(content) for pk, content in rows}


def _proposal_labels(actor: Actor, ids: list[str]) -> dict[str, str]:
    """A proposal is named by the memories it is about (their first, in two queries)."""
    wanted = [int(pk) for pk in ids if pk.isdecimal() and len(pk) < 19]
    about = dict(
        ReviewProposal.objects.filter(owner=actor.user, pk__in=wanted).values_list(
            "pk", "memory_ids"
        )
    )
    first = {pk: memory_ids[0] for pk, memory_ids in about.items() if memory_ids}
    texts = item_labels(actor, MEMORY, [str(pk) for pk in first.values()])
    return {str(pk): texts.get(str(first.get(pk)), f"#{pk}") for pk in about}


def _excerpt(content: str) -> str:
    flat = " ".join(content.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


def _is_uuid(value: str) -> bool:
    try:
        UUID(value)
    except ValueError:
        return False
    return True


# --- the bulk bar a list shows ----------------------------------------------------------------

ACTION_LABELS = {
    "confirm": gettext_lazy("Confirm"),
    "lock": gettext_lazy("Lock"),
    "archive": gettext_lazy("Archive"),
    "restore": gettext_lazy("Restore"),
    "delete": gettext_lazy("Delete permanently"),
    "dismiss": gettext_lazy("Dismiss"),
}
NOT_FILTERS = ("cursor", "fragment", "section")


@dataclass
class BulkBar:
    """What a list's bulk form needs: its name, the actions it offers, how many items
    its filters match (counted only when the bar is rendered: a next page's cards need
    only the form's id), and those filters (as a query string the form sends back)."""

    name: str
    actions: list[tuple[str, str]]
    count: Callable[[], int]
    filter: str

    @property
    def form_id(self) -> str:
        return f"bulk-{self.name}"

    @cached_property
    def total(self) -> int:
        return self.count()


def bulk_bar(actor: Actor, name: str, params: QueryDict, *, total: int | None = None) -> BulkBar:
    kept = params.copy()
    for key in NOT_FILTERS:
        kept.pop(key, None)
    if name == "projects":
        kept["project"] = selected_project(actor.user, params.get("project", ""))
    found = bulk_list(name)
    return BulkBar(
        name,
        [(action, ACTION_LABELS[action]) for action in found.actions],
        (lambda: list_total(actor, name, kept)) if total is None else (lambda: total),
        kept.urlencode(),
    )
