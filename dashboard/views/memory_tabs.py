"""The tab pages: Core, Projects, Recent, Review, Archive, Activity and Search."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.models import PersonalAccessToken
from foundation.errors import ServiceError
from foundation.views import keyset_page, owner_actor
from injection.selectors import injection_counts
from memories.models import (
    EventType,
    Kind,
    Memory,
    MemoryEvent,
    MemoryLink,
    ProposalStatus,
    Relation,
    ReviewProposal,
    Status,
    Trust,
)
from memories.selectors import (
    MAX_FILTER_CHARS,
    MemoryFilters,
    archive_memories,
    core_memories,
    disputed_memories,
    inferred_memories,
    memories_for_owner,
    project_memories,
    recent_memories,
)

MAX_PROJECT_SECTIONS = 100
MAX_PROPOSALS_SHOWN = 10
# Review is a work queue with up to three cards per dispute: shorter pages keep it quick.
REVIEW_DISPUTES_PER_PAGE = 10
REVIEW_INFERRED_PER_PAGE = 15
MAX_AGENT_CHOICES = 50


def with_links(memories: list[Memory]) -> list[Memory]:
    """Attach each memory's links (both directions) and how often it was injected into
    prompts, with one query each for the whole page."""
    ids = [memory.pk for memory in memories]
    by_id: dict = {pk: [] for pk in ids}
    if ids:
        links = (
            MemoryLink.objects.filter(Q(from_memory__in=ids) | Q(to_memory__in=ids))
            .select_related("from_memory", "to_memory")
            .order_by("-created_at")[:500]
        )
        for link in links:
            for end in (link.from_memory_id, link.to_memory_id):
                if end in by_id and link not in by_id[end]:
                    by_id[end].append(link)
    injected = injection_counts(ids)
    for memory in memories:
        memory.dash_links = by_id[memory.pk]
        memory.dash_injected = injected.get(memory.pk, 0)
    return memories


def _render_tab(request: HttpRequest, template: str, tab: str, context: dict) -> HttpResponse:
    """A full page, or, for htmx, only the named fragment (a next page or new results)."""
    context = {"tab": tab, **context}
    if request.htmx and request.GET.get("fragment") == "page":
        return render(request, f"{template}#page", context)
    if request.htmx and request.htmx.target == "results" and tab == "search":
        # The live search box and filters: new results only (the URL stays clean to share).
        return render(request, f"{template}#results", context)
    return render(request, template, context)


def _memory_tab(request, tab: str, queryset, *, title: str, intro: str, field: str = "updated_at"):
    page = keyset_page(queryset, request.GET.get("cursor"), field=field)
    with_links(page.items)
    return _render_tab(
        request, "dashboard/memories.html", tab, {"page": page, "title": title, "intro": intro}
    )


@login_required
@require_GET
def core(request: HttpRequest) -> HttpResponse:
    return _memory_tab(
        request, "core", core_memories(request.user),
        title=_("Core"), intro=_("Global memories you confirmed or locked: what every agent starts from."),
    )  # fmt: skip


@login_required
@require_GET
def recent(request: HttpRequest) -> HttpResponse:
    return _memory_tab(
        request, "recent", recent_memories(request.user),
        title=_("Recent"), intro=_("The newest writes, with the agent that wrote each."),
    )  # fmt: skip


@login_required
@require_GET
def archive(request: HttpRequest) -> HttpResponse:
    return _memory_tab(
        request, "archive", archive_memories(request.user),
        title=_("Archive"), intro=_("Archived and superseded memories. Restore brings one back."),
    )  # fmt: skip


@login_required
@require_GET
def projects(request: HttpRequest) -> HttpResponse:
    # Counted per status with COUNT(*), so the scope index alone answers (no row reads).
    totals: dict[str, int] = {}
    for part in project_memories(request.user):
        for key, count in part.values_list("scope_key").annotate(n=Count("*")).order_by():
            totals[key] = totals.get(key, 0) + count
    sections = [
        {"scope_key": key, "count": count}
        for key, count in sorted(totals.items(), key=lambda item: (-item[1], item[0]))[
            :MAX_PROJECT_SECTIONS
        ]
    ]
    selected = request.GET.get("project", "")[:MAX_FILTER_CHARS] or (
        sections[0]["scope_key"] if sections else ""
    )
    page = keyset_page(
        [part.filter(scope_key=selected) for part in project_memories(request.user)],
        request.GET.get("cursor"),
    )
    with_links(page.items)
    return _render_tab(
        request, "dashboard/projects.html", "projects",
        {"sections": sections, "selected": selected, "page": page},
    )  # fmt: skip


@login_required
@require_GET
def review(request: HttpRequest) -> HttpResponse:
    """Disputed memories beside the memory each contradicts, then inferred ones to confirm."""
    section = request.GET.get("section", "")
    disputed = keyset_page(
        disputed_memories(request.user),
        request.GET.get("cursor") if section == "disputed" else None,
        size=REVIEW_DISPUTES_PER_PAGE,
    )
    inferred = keyset_page(
        inferred_memories(request.user),
        request.GET.get("cursor") if section == "inferred" else None,
        size=REVIEW_INFERRED_PER_PAGE,
    )
    ids = [memory.pk for memory in disputed.items]
    against: dict = {}
    for link in (
        MemoryLink.objects.filter(owner=request.user, relation=Relation.CONTRADICTS)
        .filter(Q(from_memory__in=ids) | Q(to_memory__in=ids))
        .select_related("from_memory", "to_memory")
    ):
        if link.from_memory_id in ids and link.to_memory is not None:
            against.setdefault(link.from_memory_id, link.to_memory)
        elif link.to_memory_id in ids:
            against.setdefault(link.to_memory_id, link.from_memory)
    pairs = [(memory, against.get(memory.pk)) for memory in disputed.items]
    proposals = _pending_proposals(request.user)
    shown = [m for pair in pairs for m in pair if m is not None] + inferred.items
    with_links(shown + [m for _, memories in proposals for m in memories])
    return _render_tab(
        request, "dashboard/review.html", "review",
        {"pairs": pairs, "disputed": disputed, "inferred": inferred, "section": section,
         "proposals": proposals},
    )  # fmt: skip


def _pending_proposals(user) -> list[tuple[ReviewProposal, list[Memory]]]:
    """What compaction proposes (near-duplicates, stale memories), newest first, with the
    memories each is about; the owner answers with the cards' own actions."""
    proposals = list(
        ReviewProposal.objects.filter(owner=user, status=ProposalStatus.PENDING).order_by(
            "-created_at", "-id"
        )[:MAX_PROPOSALS_SHOWN]
    )
    ids = {pk for proposal in proposals for pk in proposal.memory_ids}
    memories = Memory.objects.in_bulk([pk for pk in ids], field_name="pk") if ids else {}
    by_id = {str(pk): memory for pk, memory in memories.items()}
    answered = []
    for proposal in proposals:
        found = [
            by_id[pk] for pk in proposal.memory_ids if pk in by_id and by_id[pk].owner_id == user.pk
        ]
        if found:
            answered.append((proposal, found))
    return answered


@login_required
@require_GET
def activity(request: HttpRequest) -> HttpResponse:
    """The event stream, newest first, filterable by agent ('owner' for the owner's own)
    and event type."""
    events = MemoryEvent.objects.filter(owner=request.user)
    agent = request.GET.get("agent", "")[:100]
    event_type = request.GET.get("event_type", "")
    if agent == "owner":
        events = events.filter(actor_agent="")
    elif agent:
        events = events.filter(actor_agent=agent)
    if event_type in EventType.values:
        events = events.filter(event_type=event_type)
    page = keyset_page(events, request.GET.get("cursor"), field="created_at")
    # The agents the owner issued tokens to: a distinct over the whole event stream would
    # read every event. (Another name can still be filtered by in the URL.)
    agents = sorted(
        set(
            PersonalAccessToken.objects.filter(owner=request.user)
            .order_by("-created_at")
            .values_list("agent_name", flat=True)[:MAX_AGENT_CHOICES]
        )
        | ({agent} if agent and agent != "owner" else set())
    )
    return _render_tab(
        request, "dashboard/activity.html", "activity",
        {"page": page, "agents": agents, "agent": agent, "event_type": event_type,
         "event_types": EventType.choices},
    )  # fmt: skip


def _choices(request, name: str, allowed) -> tuple[str, ...]:
    return tuple(value for value in request.GET.getlist(name) if value in allowed)


@login_required
@require_GET
def search(request: HttpRequest) -> HttpResponse:
    """Every memory of the owner, narrowed by a content substring and filters, newest first.

    Deliberately not recall: recall ranks one project's view (global + that project) for
    an agent, while the owner searches across every scope and status. A bounded substring
    filter over the owner's rows, paged by keyset, answers that (see docs/dashboard.md)."""
    filters = MemoryFilters(
        kind=_choices(request, "kind", Kind.values),
        trust=_choices(request, "trust", Trust.values),
        status=_choices(request, "status", Status.values),
        source_agent=request.GET.get("agent", "").strip(),
        project=request.GET.get("project", "").strip(),
        q=request.GET.get("q", "").strip(),
    )
    error = ""
    try:
        queryset = memories_for_owner(owner_actor(request), filters)
    except ServiceError as exc:
        error, queryset = exc.message, Memory.objects.none()
    page = keyset_page(queryset, request.GET.get("cursor"))
    with_links(page.items)
    return _render_tab(
        request, "dashboard/search.html", "search",
        {"page": page, "filters": filters, "error": error,
         "kinds": Kind.choices, "trusts": Trust.choices, "statuses": Status.choices},
    )  # fmt: skip
