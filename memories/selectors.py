"""Reads: which memories an actor may see, one memory, and its history.

Visibility is decided here once, and every read and every write-by-id goes through it, so a
memory an actor may not see behaves exactly like one that does not exist (NOT_FOUND).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import LIMIT_RANGE, PRINTABLE, not_found, validation_error
from foundation.paging import INVALID as CURSOR_INVALID
from foundation.paging import cursor_decode, cursor_encode, query_key
from memories import contract
from memories.models import (
    LIVE_STATUSES,
    OWNER_TRUSTS,
    EventType,
    Memory,
    MemoryEvent,
    MemoryLink,
    ProposalStatus,
    Relation,
    ReviewProposal,
    ScopeType,
    Status,
    Trust,
    Visibility,
)

HISTORY_MAX_LIMIT = contract.HISTORY_MAX_LIMIT
MAX_FILTER_CHARS = 300


def memories_visible_to(actor: Actor) -> QuerySet[Memory]:
    """The owner sees all of their memories. An agent sees its owner's shared memories
    (private ones only with `private:read`), never another agent's agent-scoped notes, only
    the projects its token is restricted to, and nothing held for the owner (disputed or
    quarantined text, whatever its status now) until the owner releases it.

    Every write compares a new statement only with what this returns (DESIGN §4, remember:
    visibility first), so a memory an agent may not read is never compared, merged, named
    or counted on its behalf."""
    queryset = Memory.objects.filter(owner=actor.user)
    if actor.is_owner:
        return queryset
    # A disputed row is held whether or not its marker was set (a package import keeps
    # the status of what it brings, not the marker).
    queryset = queryset.filter(held=False).exclude(status=Status.DISPUTED)
    if not actor.can_read_private:
        queryset = queryset.filter(visibility=Visibility.SHARED)
    queryset = queryset.exclude(Q(scope_type=ScopeType.AGENT) & ~Q(scope_key=actor.agent_name))
    if actor.token.allowed_projects:
        queryset = queryset.exclude(
            Q(scope_type=ScopeType.PROJECT) & ~Q(scope_key__in=actor.token.allowed_projects)
        )
    return queryset


@dataclass(frozen=True)
class MemoryFilters:
    """What the owner narrows a memory list by. Enum filters hold already checked values;
    an empty one means "any". `q` is a case-insensitive substring of the content,
    `source_agent` an agent's name in any case; `by_me` keeps what the owner wrote."""

    kind: tuple[str, ...] = ()
    trust: tuple[str, ...] = ()
    status: tuple[str, ...] = ()
    scope_type: tuple[str, ...] = ()
    visibility: tuple[str, ...] = ()
    scope_key: str = ""
    project: str = ""
    source_agent: str = ""
    key: str = ""
    q: str = ""
    by_me: bool = False


TEXT_FILTERS = ("scope_key", "project", "source_agent", "key", "q")


def memories_for_owner(actor: Actor, filters: MemoryFilters) -> QuerySet[Memory]:
    """The actor's visible memories narrowed by `filters` (unordered: callers page it).
    Text filters are bounded and printable, so a substring search stays a bounded scan
    (pg_trgm serves it on PostgreSQL); the enum filters match the owner-leading indexes."""
    queryset = memories_visible_to(actor)
    for name in ("kind", "trust", "status", "scope_type", "visibility"):
        values = getattr(filters, name)
        if values:
            queryset = queryset.filter(**{f"{name}__in": list(values)})
    for name in TEXT_FILTERS:
        value = getattr(filters, name)
        if len(value) > MAX_FILTER_CHARS or any(unicodedata.category(c) == "Cc" for c in value):
            raise validation_error(PRINTABLE, field=name, name=name, limit=MAX_FILTER_CHARS)
    if filters.project:
        queryset = queryset.filter(scope_type=ScopeType.PROJECT, scope_key=filters.project)
    for name in ("scope_key", "key"):
        if getattr(filters, name):
            queryset = queryset.filter(**{name: getattr(filters, name)})
    if filters.source_agent:  # `CURSOR` finds cursor's: names are not spelled consistently
        queryset = queryset.filter(source_agent__iexact=filters.source_agent)
    if filters.by_me:  # the owner's writes carry no agent (as their history events)
        queryset = queryset.filter(source_agent="")
    if filters.q:
        queryset = queryset.filter(content__icontains=filters.q)
    return queryset


def is_visible_to(actor: Actor, memory: Memory) -> bool:
    """The same rule as memories_visible_to, for a row already in hand (kept beside it, and
    tested against it, so the two never disagree)."""
    if memory.owner_id != actor.user.pk:
        return False
    if actor.is_owner:
        return True
    if memory.held or memory.status == Status.DISPUTED:
        return False
    if memory.visibility != Visibility.SHARED and not actor.can_read_private:
        return False
    if memory.scope_type == ScopeType.AGENT and memory.scope_key != actor.agent_name:
        return False
    if memory.scope_type == ScopeType.PROJECT and actor.token.allowed_projects:
        return memory.scope_key in actor.token.allowed_projects
    return True


def parse_memory_id(memory_id) -> UUID:
    if isinstance(memory_id, UUID):
        return memory_id
    try:
        return UUID(str(memory_id))
    except (ValueError, TypeError, AttributeError):
        raise validation_error(gettext_noop("id must be a memory UUID."), field="id") from None


def memory_get(*, actor: Actor, memory_id) -> Memory:
    actor.require_scope("memories:read")
    memory = memories_visible_to(actor).filter(pk=parse_memory_id(memory_id)).first()
    if memory is None:
        raise not_found()
    return memory


def version_chain_ids(memory: Memory) -> list[UUID]:
    """This memory and every earlier version it supersedes, newest first."""
    ids, seen = [], set()
    current: Memory | None = memory
    while current is not None and current.pk not in seen:
        ids.append(current.pk)
        seen.add(current.pk)
        current = (
            Memory.objects.filter(pk=current.supersedes_id, owner=memory.owner_id).first()
            if current.supersedes_id
            else None
        )
    return ids


def readable_chain_ids(actor: Actor, memory: Memory) -> list[UUID]:
    """The version chain as this actor may read it: an earlier version it may not see (held
    for the owner, private) is left out, with its events and the text they record."""
    chain = version_chain_ids(memory)
    if actor.is_owner:
        return chain
    readable = set(memories_visible_to(actor).filter(pk__in=chain).values_list("pk", flat=True))
    return [pk for pk in chain if pk in readable]


@dataclass(frozen=True)
class HistoryPage:
    events: list[MemoryEvent]
    next_cursor: str | None


def _history_query(memory_id: UUID) -> str:
    return query_key("memory-history", str(memory_id))


def _encode_cursor(memory_id: UUID, event_id: int) -> str:
    return cursor_encode(event_id, query=_history_query(memory_id))


def _decode_cursor(cursor: str, memory_id: UUID) -> int:
    event_id = cursor_decode(cursor, query=_history_query(memory_id))
    if isinstance(event_id, bool) or not isinstance(event_id, int):
        raise validation_error(CURSOR_INVALID, field="cursor")
    return event_id


def memory_history(
    *,
    actor: Actor,
    memory_id,
    limit: int = contract.HISTORY_DEFAULT_LIMIT,
    cursor: str | None = None,
) -> HistoryPage:
    """Events of a memory and of its earlier versions, newest first, paginated."""
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= HISTORY_MAX_LIMIT:
        raise validation_error(LIMIT_RANGE, field="limit", limit=HISTORY_MAX_LIMIT)
    memory = memory_get(actor=actor, memory_id=memory_id)
    events = MemoryEvent.objects.filter(
        owner=actor.user, memory_id__in=readable_chain_ids(actor, memory)
    ).order_by("-id")
    if cursor:
        events = events.filter(id__lt=_decode_cursor(cursor, memory.pk))
    page = list(events.select_related("actor_token")[: limit + 1])
    next_cursor = _encode_cursor(memory.pk, page[limit - 1].id) if len(page) > limit else None
    return HistoryPage(events=page[:limit], next_cursor=next_cursor)


def conflicts_among(actor: Actor, memory_ids) -> dict[UUID, list[str]]:
    """For each of these memories, the live memories the actor may read that it is linked
    `contradicts` with, in either direction (what recall annotates its results with)."""
    ids = list(memory_ids)
    if not ids:
        return {}
    pairs = MemoryLink.objects.filter(owner=actor.user, relation=Relation.CONTRADICTS).filter(
        Q(from_memory_id__in=ids) | Q(to_memory_id__in=ids), to_memory__isnull=False
    )
    edges = list(pairs.values_list("from_memory_id", "to_memory_id"))
    others = {one for edge in edges for one in edge}
    readable = set(
        memories_visible_to(actor)
        .filter(pk__in=others, status=Status.ACTIVE)
        .values_list("pk", flat=True)
    )
    found: dict[UUID, set] = {}
    wanted = set(ids)
    for first, second in edges:
        for this, other in ((first, second), (second, first)):
            if this in wanted and other in readable:
                found.setdefault(this, set()).add(str(other))
    return {memory_id: sorted(others) for memory_id, others in found.items()}


# --- what each dashboard tab lists (owner-scoped, index-backed) ----------------------------


# Each list is one or more querysets with equality filters only, so that each walks one
# owner-leading index (an IN list or an OR makes SQLite read every match and sort).


def core_memories(user) -> QuerySet[Memory]:
    # scope_key="" is implied by global (a constraint) but lets the scope index serve it.
    return Memory.objects.filter(
        owner=user, status=Status.ACTIVE, scope_type=ScopeType.GLOBAL, scope_key="",
        trust__in=OWNER_TRUSTS,
    )  # fmt: skip


def project_memories(user) -> list[QuerySet[Memory]]:
    return [
        Memory.objects.filter(owner=user, status=status, scope_type=ScopeType.PROJECT)
        for status in LIVE_STATUSES
    ]


def recent_memories(user) -> list[QuerySet[Memory]]:
    return [Memory.objects.filter(owner=user, status=status) for status in LIVE_STATUSES]


def disputed_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user, status=Status.DISPUTED)


def inferred_memories(user) -> QuerySet[Memory]:
    return Memory.objects.filter(owner=user, status=Status.ACTIVE, trust=Trust.INFERRED)


def archive_memories(user) -> list[QuerySet[Memory]]:
    return [
        Memory.objects.filter(owner=user, status=status)
        for status in (Status.ARCHIVED, Status.SUPERSEDED)
    ]


# --- reads behind the dashboard's tabs (Projects, Review, Activity, Overview) --------------


def project_totals(user) -> dict[str, int]:
    """Live project memories per project key. Counted per status with COUNT(*), so the
    scope index alone answers (no row reads)."""
    totals: dict[str, int] = {}
    for part in project_memories(user):
        for key, count in part.values_list("scope_key").annotate(n=Count("*")).order_by():
            totals[key] = totals.get(key, 0) + count
    return totals


def contradicted_by(user, memory_ids: list) -> dict:
    """For each of these memories, the memory its `contradicts` link points at (either
    direction), if that memory still exists; one query for the whole page."""
    against: dict = {}
    links = (
        MemoryLink.objects.filter(owner=user, relation=Relation.CONTRADICTS)
        .filter(Q(from_memory__in=memory_ids) | Q(to_memory__in=memory_ids))
        .select_related("from_memory", "to_memory")
    )
    for link in links:
        if link.from_memory_id in memory_ids and link.to_memory is not None:
            against.setdefault(link.from_memory_id, link.to_memory)
        elif link.to_memory_id in memory_ids:
            against.setdefault(link.to_memory_id, link.from_memory)
    return against


def proposal_memories(proposal: ReviewProposal) -> list[Memory]:
    """The proposal's memories of its owner, in the proposal's order."""
    found = Memory.objects.in_bulk(list(proposal.memory_ids))
    by_id = {
        str(pk): memory for pk, memory in found.items() if memory.owner_id == proposal.owner_id
    }
    return [by_id[pk] for pk in proposal.memory_ids if pk in by_id]


def pending_proposals(user, *, limit: int) -> list[tuple[ReviewProposal, list[Memory]]]:
    """What compaction proposes (near-duplicates, stale memories), newest first, with the
    memories each is about (one query for all); proposals about nothing left are skipped."""
    proposals = list(
        ReviewProposal.objects.filter(owner=user, status=ProposalStatus.PENDING).order_by(
            "-created_at", "-id"
        )[:limit]
    )
    ids = [pk for proposal in proposals for pk in proposal.memory_ids]
    found = Memory.objects.filter(owner=user).in_bulk(ids) if ids else {}
    by_id = {str(pk): memory for pk, memory in found.items()}
    answered = []
    for proposal in proposals:
        memories = [by_id[pk] for pk in proposal.memory_ids if pk in by_id]
        if memories:
            answered.append((proposal, memories))
    return answered


def owner_events(user, *, agent: str = "", event_type: str = "") -> QuerySet[MemoryEvent]:
    """The owner's event stream (unordered: callers page it), optionally one agent's
    ('owner' for the owner's own) and one event type's; an unknown type filters nothing."""
    events = MemoryEvent.objects.filter(owner=user)
    if agent == "owner":
        events = events.filter(actor_agent="")
    elif agent:
        events = events.filter(actor_agent=agent)
    if event_type in EventType.values:
        events = events.filter(event_type=event_type)
    return events


def memory_totals(user, field: str) -> dict[str, int]:
    """The owner's memories counted by `field` (kind, trust, source_agent): COUNT(*) grouped
    by an indexed column, which the owner-leading indexes answer without reading a row."""
    mine = Memory.objects.filter(owner=user)
    return dict(mine.values_list(field).annotate(n=Count("*")).order_by())


def writes_per_agent_on(user, *, start: datetime, end: datetime, event_types) -> dict[str, int]:
    """Write events between `start` and `end`, counted per agent ('' for the owner). A
    created_at range lets the owner-recent index bound the read, and no per-row date
    function runs (SQLite's is Python, called for every row)."""
    counts = (
        MemoryEvent.objects.filter(
            owner=user, created_at__gte=start, created_at__lt=end, event_type__in=event_types
        )
        .values_list("actor_agent")
        .annotate(n=Count("*"))
        .order_by()
    )
    return dict(counts)
