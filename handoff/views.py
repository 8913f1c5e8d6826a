"""The dashboard's Handoffs tab: the capsules agents left, one capsule, expire now.

Thin like every dashboard view: reads come from `handoff.selectors`, the one write is
`handoff.services.handoff_expire`, always as the signed-in owner. The state filter is the
owner API's vocabulary (`handoff.contract`).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from foundation.htmx import answer, refuses_bad_input, requested_fragment
from foundation.paging import keyset_page, query_key
from foundation.views import back, owner_actor, safe_next
from handoff.contract import STATE_FILTERS
from handoff.selectors import handoff_get, handoffs_for_owner
from handoff.services import handoff_expire

MAX_TASK_FILTER_CHARS = 300


@login_required
@require_GET
@refuses_bad_input
def handoffs(request: HttpRequest) -> HttpResponse:
    """The owner's capsules, newest first, filtered by state (active, open, resumed,
    expired; an unknown one is refused) and an exact task id; paged by keyset."""
    state = request.GET.get("state", "")
    task = request.GET.get("task", "").strip()[:MAX_TASK_FILTER_CHARS]
    capsules = handoffs_for_owner(owner=request.user, task_id=task or None, state=state or None)
    query = query_key("dashboard", "handoffs", request.user.pk, state, task)
    page = keyset_page(capsules, request.GET.get("cursor"), query=query, field="created_at")
    context = {
        "tab": "handoffs",
        "page": page,
        "state": state,
        "task": task,
        "states": STATE_FILTERS,
    }
    return answer(
        request, "handoff/handoffs.html", context, fragment=requested_fragment(request, "page")
    )


@login_required
@require_GET
@refuses_bad_input
def handoff_detail(request: HttpRequest, capsule_id) -> HttpResponse:
    capsule = handoff_get(owner=request.user, capsule_id=capsule_id)
    return answer(request, "handoff/capsule.html", {"tab": "handoffs", "capsule": capsule})


@login_required
@require_POST
@refuses_bad_input
def handoff_expire_view(request: HttpRequest, capsule_id) -> HttpResponse:
    """Expire now (idempotent). htmx: the capsule again, as a list row or as the detail
    panel (`shape`), and `counts-changed` for the tab bar; without JavaScript: back to
    `next`."""
    capsule = handoff_expire(actor=owner_actor(request), capsule_id=capsule_id)
    if not request.htmx:
        messages.success(
            request,
            _("The handoff for “%(task)s” has expired; no agent will resume it.")
            % {"task": capsule.task_id},
        )
        return back(request, "dashboard:handoffs")
    context = {"c": capsule, "capsule": capsule, "next": safe_next(request), "notice": True}
    if request.POST.get("shape") == "detail":
        return answer(
            request, "handoff/capsule.html", context, fragment="detail", counts_changed=True
        )
    return answer(request, "handoff/_row.html", context, counts_changed=True)
