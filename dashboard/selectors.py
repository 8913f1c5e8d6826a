"""Reads behind the dashboard's pages that combine several apps' nouns (a memory with its
links and how often it was injected; Activity's agents), each returning what one page
renders (Review's are `dashboard.review`). Every read is owner-scoped and paged by keyset."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.models import PersonalAccessToken
from dashboard.cache import per_generation
from dashboard.provenance import with_origins
from dashboard.readable import with_subjects
from foundation.paging import Page, keyset_page, query_key
from injection.selectors import injection_counts
from memories.models import EventType, Memory, MemoryLink, ScopeType
from memories.selectors import (
    MAX_FILTER_CHARS,
    MemoryFilters,
    memories_for_owner,
    memory_totals,
    owner_events,
    project_memories,
    project_totals,
    writes_per_agent_on,
)

MAX_LINKS_PER_PAGE = 500
MAX_PROJECT_SECTIONS = 100
MAX_AGENT_CHOICES = 50
MAX_FACET_OPTIONS = 100
WRITE_EVENTS = (EventType.CREATED, EventType.REPLACED, EventType.MERGED, EventType.CORRECTED)


def with_links(memories: list[Memory]) -> list[Memory]:
    """Attach each memory's links (both directions), how often it was injected into
    prompts and where it came from (`dashboard.provenance`), a few queries per page."""
    ids = [memory.pk for memory in memories]
    by_id: dict = {pk: [] for pk in ids}
    if ids:
        links = (
            MemoryLink.objects.filter(Q(from_memory__in=ids) | Q(to_memory__in=ids))
            .select_related("from_memory", "to_memory")
            .order_by("-created_at")[:MAX_LINKS_PER_PAGE]
        )
        for link in links:
            for end in (link.from_memory_id, link.to_memory_id):
                if end in by_id and link not in by_id[end]:
                    by_id[end].append(link)
    injected = injection_counts(ids)
    for memory in memories:
        memory.dash_links = by_id[memory.pk]
        memory.dash_injected = injected.get(memory.pk, 0)
    return with_origins(memories)


def memory_page(
    user, tab: str, queryset: QuerySet | list[QuerySet], cursor: str | None, *filters, **options
) -> Page:
    """One page of a memory tab, its cards' links attached; the cursor is bound to the tab,
    the owner and `filters`."""
    page = keyset_page(
        queryset, cursor, query=query_key("dashboard", tab, user.pk, *filters), **options
    )
    with_links(page.items)
    return page


def search_page(actor, filters: MemoryFilters, cursor: str | None) -> Page:
    """A page of every memory of the owner matching `filters` (see memories_for_owner)."""
    queryset = memories_for_owner(actor, filters)
    return memory_page(actor.user, "search", queryset, cursor, filters)


@dataclass(frozen=True)
class SearchFacets:
    """Search's choices, each option `{"value", "count", "selected"}`: the agents, projects
    and kinds the owner's memories (every status) have, and how many the owner wrote."""

    agents: list[dict]
    projects: list[dict]
    kinds: list[dict]
    mine: int


def _grouped(queryset: QuerySet, field: str) -> dict[str, int]:
    return dict(queryset.values_list(field).annotate(n=Count("*")).order_by())


def _options(counts: dict[str, int], chosen, *, same=lambda a, b: a == b) -> list[dict]:
    """The busiest MAX_FACET_OPTIONS values by name, plus a chosen one that has none (a
    bookmarked filter keeps showing what it filters by)."""
    busiest = sorted(counts, key=lambda value: (-counts[value], value))[:MAX_FACET_OPTIONS]
    options = [
        {"value": value, "count": counts[value], "selected": any(same(value, c) for c in chosen)}
        for value in sorted(busiest)
    ]
    options += [
        {"value": c, "count": 0, "selected": True}
        for c in chosen
        if c and not any(same(option["value"], c) for option in options)
    ]
    return options


def search_facets(user, filters: MemoryFilters) -> SearchFacets:
    """One grouped COUNT per facet, each over an owner-leading index (agent, scope, kind),
    reused until the owner's next write; the counts are the owner's whole store, so an
    option says how much there is to find, whatever else is filtered."""
    mine = Memory.objects.filter(owner=user)
    agents, projects, kinds = per_generation(
        user,
        "search-facets",
        lambda: (
            _grouped(mine, "source_agent"),
            _grouped(mine.filter(scope_type=ScopeType.PROJECT), "scope_key"),
            _grouped(mine, "kind"),
        ),
    )
    named = {name: n for name, n in agents.items() if name}  # '' is the owner's own
    agent = (filters.source_agent,) if filters.source_agent else ()
    return SearchFacets(
        agents=_options(named, agent, same=lambda a, b: a.casefold() == b.casefold()),
        projects=_options(projects, (filters.project,) if filters.project else ()),
        kinds=_options(kinds, filters.kind),
        mine=agents.get("", 0),
    )


@dataclass
class ProjectsTab:
    sections: list[dict]
    selected: str
    page: Page


def _project_sections(user) -> list[dict]:
    totals = sorted(project_totals(user).items(), key=lambda item: (-item[1], item[0]))
    return [{"scope_key": key, "count": n} for key, n in totals[:MAX_PROJECT_SECTIONS]]


def selected_project(user, project: str) -> str:
    """The project the Projects tab shows: the one asked for, by default the busiest."""
    if project:
        return project[:MAX_FILTER_CHARS]
    sections = _project_sections(user)
    return sections[0]["scope_key"] if sections else ""


def projects_tab(user, *, project: str, cursor: str | None) -> ProjectsTab:
    """The busiest projects (most memories first), and a page of the chosen one's (by
    default the busiest)."""
    sections = _project_sections(user)
    selected = project[:MAX_FILTER_CHARS] or (sections[0]["scope_key"] if sections else "")
    parts = [part.filter(scope_key=selected) for part in project_memories(user)]
    return ProjectsTab(sections, selected, memory_page(user, "projects", parts, cursor, selected))


def agent_choices(user, *, also: str = "") -> list[str]:
    """The agents the owner issued tokens to (a distinct over the whole event stream would
    read every event), plus `also` (another name can still be filtered by in the URL)."""
    names = set(
        PersonalAccessToken.objects.filter(owner=user)
        .order_by("-created_at")
        .values_list("agent_name", flat=True)[:MAX_AGENT_CHOICES]
    )
    return sorted(names | ({also} if also and also != "owner" else set()))


def activity_page(user, *, agent: str, event_type: str, cursor: str | None) -> Page:
    """A page of the owner's event stream, newest first, for one agent and event type."""
    events = owner_events(user, agent=agent, event_type=event_type)
    query = query_key("dashboard", "activity", user.pk, agent, event_type)
    page = keyset_page(events, cursor, query=query, field="created_at")
    with_subjects(user, page.items)  # each row names its memory in words, never by id
    return page


def owner_tokens(user, *, limit: int) -> list[PersonalAccessToken]:
    """The owner's access tokens, newest first (revoked and expired ones included)."""
    return list(PersonalAccessToken.objects.filter(owner=user).order_by("-created_at")[:limit])


def writes_by_day(user, days: list[date]) -> dict[tuple[date, str], int]:
    """Write events per (day, agent) over these local days, one grouped count per day."""
    cells: dict[tuple[date, str], int] = {}
    for day in days:
        start = timezone.make_aware(datetime.combine(day, time.min))
        counts = writes_per_agent_on(
            user, start=start, end=start + timedelta(days=1), event_types=WRITE_EVENTS
        )
        cells.update({(day, agent): n for agent, n in counts.items()})
    return cells


def overview_totals(user, days: list[date]) -> tuple[dict, dict, dict, dict]:
    """(memories by kind, by trust, by agent ('' for the owner), writes per day and agent).
    Tens of ms at 100k memories, so reused until the owner's next write."""
    return per_generation(
        user,
        f"overview:{days[-1].isoformat()}",
        lambda: (
            memory_totals(user, "kind"),
            memory_totals(user, "trust"),
            memory_totals(user, "source_agent"),
            writes_by_day(user, days),
        ),
    )
