"""The tab pages: Core, Projects, Recent, Review, Archive, Activity and Search.

Each renders the whole page, or for htmx only the fragment it asked for (`?fragment=page`
for the next page of a list, the search results for the live search box). A cursor that
is not this list's is refused with a 400, like every door refuses it.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from dashboard.lists import bulk_bar, search_filters
from dashboard.preferences import memory_view_of
from dashboard.review import SECTIONS, review_queue
from dashboard.selectors import (
    activity_page,
    agent_choices,
    memory_page,
    projects_tab,
    search_facets,
    search_page,
)
from foundation.errors import ServiceError
from foundation.htmx import answer, refuses_bad_input, requested_fragment
from foundation.paging import Page
from foundation.views import owner_actor
from memories.models import EventType, Status, Trust
from memories.selectors import (
    archive_memories,
    core_memories,
    recent_memories,
)


def _tab(
    request: HttpRequest, template: str, tab: str, context: dict, *, fragments=("page",), **options
) -> HttpResponse:
    fragment = requested_fragment(request, *fragments)
    return answer(request, template, {"tab": tab, **context}, fragment=fragment, **options)


def _memory_tab(request: HttpRequest, tab: str, queryset, *, title: str, intro: str):
    page = memory_page(request.user, tab, queryset, request.GET.get("cursor"))
    bar = bulk_bar(owner_actor(request), tab, request.GET)
    view = memory_view_of(request.user)
    context = {"page": page, "title": title, "intro": intro, "bar": bar, "view": view}
    return _tab(request, "dashboard/memories.html", tab, context)


@login_required
@require_GET
@refuses_bad_input
def core(request: HttpRequest) -> HttpResponse:
    return _memory_tab(
        request, "core", core_memories(request.user),
        title=_("Core"), intro=_("Global memories you confirmed or locked: what every agent starts from."),
    )  # fmt: skip


@login_required
@require_GET
@refuses_bad_input
def recent(request: HttpRequest) -> HttpResponse:
    return _memory_tab(
        request, "recent", recent_memories(request.user),
        title=_("Recent"), intro=_("The newest writes, with the agent that wrote each."),
    )  # fmt: skip


@login_required
@require_GET
@refuses_bad_input
def archive(request: HttpRequest) -> HttpResponse:
    return _memory_tab(
        request, "archive", archive_memories(request.user),
        title=_("Archive"), intro=_("Archived and superseded memories. Restore brings one back."),
    )  # fmt: skip


@login_required
@require_GET
@refuses_bad_input
def projects(request: HttpRequest) -> HttpResponse:
    found = projects_tab(
        request.user, project=request.GET.get("project", ""), cursor=request.GET.get("cursor")
    )
    shown = request.GET.copy()
    shown["project"] = found.selected  # the busiest when none was asked for
    context = {
        "sections": found.sections, "selected": found.selected, "page": found.page,
        "bar": bulk_bar(owner_actor(request), "projects", shown),
        "view": memory_view_of(request.user),
    }  # fmt: skip
    return _tab(request, "dashboard/projects.html", "projects", context)


@login_required
@require_GET
@refuses_bad_input
def review(request: HttpRequest) -> HttpResponse:
    """Conflicts, quarantined writes, disputes, compaction's proposals, then inferred
    memories to confirm (`dashboard.review`); `?section=&cursor=` pages one of them."""
    queue = review_queue(
        request.user, section=request.GET.get("section", ""), cursor=request.GET.get("cursor")
    )
    actor, totals = owner_actor(request), queue.totals
    bars = {
        name: bulk_bar(actor, f"review-{name}", request.GET, total=totals[name])
        for name in ("quarantined", "disputed", "proposals", "inferred")
    }
    fragments = [f"{name}-page" for name in SECTIONS]
    context = {"queue": queue, "bars": bars, "view": memory_view_of(request.user)}
    return _tab(request, "dashboard/review.html", "review", context, fragments=fragments)


@login_required
@require_GET
@refuses_bad_input
def activity(request: HttpRequest) -> HttpResponse:
    """The event stream, newest first, filterable by agent ('owner' for the owner's own)
    and event type."""
    agent = request.GET.get("agent", "")[:100]
    event_type = request.GET.get("event_type", "")
    page = activity_page(
        request.user, agent=agent, event_type=event_type, cursor=request.GET.get("cursor")
    )
    context = {
        "page": page, "agents": agent_choices(request.user, also=agent), "agent": agent,
        "event_type": event_type, "event_types": EventType.choices,
    }  # fmt: skip
    return _tab(request, "dashboard/activity.html", "activity", context)


@login_required
@require_GET
@refuses_bad_input
def search(request: HttpRequest) -> HttpResponse:
    """Every memory of the owner, narrowed by a content substring and filters, newest first.

    Deliberately not recall: recall ranks one project's view (global + that project) for
    an agent, while the owner searches across every scope and status. A bounded substring
    filter over the owner's rows, paged by keyset, answers that (see docs/dashboard.md)."""
    filters, error, status, bar = search_filters(request.GET), "", 200, None
    try:
        page = search_page(owner_actor(request), filters, request.GET.get("cursor"))
        bar = bulk_bar(owner_actor(request), "search", request.GET)
    except ServiceError as exc:  # a filter out of bounds or a foreign cursor: said in place
        error, status, page = exc.localized, exc.http_status, Page([], None, None)
    context = {
        "tab": "search", "page": page, "filters": filters, "error": error, "bar": bar,
        "facets": SimpleLazyObject(lambda: search_facets(request.user, filters)),
        "trusts": Trust.choices, "statuses": Status.choices, "view": memory_view_of(request.user),
    }  # fmt: skip
    # The live search box and filters ask for new results only (the URL stays clean to share),
    # so the facets (lazy) are counted for the whole page only.
    fragment = requested_fragment(request, "page") or (
        "results" if request.htmx and request.htmx.target == "results" else None
    )
    return answer(request, "dashboard/search.html", context, fragment=fragment, status=status)
