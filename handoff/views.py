"""The dashboard's Handoffs tab: the capsules agents left, one capsule, expire now.

Thin like every dashboard view: reads come from `handoff.selectors`, the one write is
`handoff.services.handoff_expire`, always as the signed-in owner.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from foundation.errors import ServiceError
from foundation.views import (
    back,
    keyset_page,
    owner_actor,
    raise_404_if_missing,
    safe_next,
)  # fmt: skip
from handoff.models import HandoffCapsule
from handoff.selectors import handoffs_for_owner
from handoff.services import handoff_expire

STATES = ("active", "resumed", "expired")
MAX_TASK_FILTER_CHARS = 300


def _capsule(request: HttpRequest, capsule_id) -> HandoffCapsule:
    capsule = handoffs_for_owner(owner=request.user).filter(pk=capsule_id).first()
    if capsule is None:  # another owner's capsule looks the same as none
        raise Http404("No such handoff.")
    return capsule


@login_required
@require_GET
def handoffs(request: HttpRequest) -> HttpResponse:
    """The owner's capsules, newest first, filtered by state (active, resumed, expired) and
    an exact task id; paged by keyset like every list."""
    state = request.GET.get("state", "")
    state = state if state in STATES else ""
    task = request.GET.get("task", "").strip()[:MAX_TASK_FILTER_CHARS]
    capsules = handoffs_for_owner(owner=request.user, task_id=task or None, state=state or None)
    page = keyset_page(capsules, request.GET.get("cursor"), field="created_at")
    context = {"tab": "handoffs", "page": page, "state": state, "task": task, "states": STATES}
    if request.htmx and request.GET.get("fragment") == "page":
        return render(request, "handoff/handoffs.html#page", context)
    return render(request, "handoff/handoffs.html", context)


@login_required
@require_GET
def handoff_detail(request: HttpRequest, capsule_id) -> HttpResponse:
    capsule = _capsule(request, capsule_id)
    return render(
        request, "handoff/capsule.html",
        {"tab": "handoffs", "capsule": capsule},
    )  # fmt: skip


@login_required
@require_POST
def handoff_expire_view(request: HttpRequest, capsule_id) -> HttpResponse:
    """Expire now (idempotent). htmx: the capsule again, as a list row or as the detail
    panel (`shape`), with the tab counts out of band; without JavaScript: back to `next`."""
    _capsule(request, capsule_id)
    try:
        capsule = handoff_expire(actor=owner_actor(request), capsule_id=capsule_id)
    except ServiceError as error:  # gone since the check above
        raise_404_if_missing(error)
        raise
    if not request.htmx:
        messages.success(
            request,
            _("The handoff for “%(task)s” has expired; no agent will resume it.")
            % {"task": capsule.task_id},
        )
        return back(request, "dashboard:handoffs")
    shape = "detail" if request.POST.get("shape") == "detail" else "row"
    context = {"c": capsule, "capsule": capsule, "next": safe_next(request), "notice": True}
    template = "handoff/capsule.html#detail" if shape == "detail" else "handoff/_row.html"
    html = render_to_string(template, context, request=request)
    counts = {"oob": True}
    html += render_to_string("dashboard/_counts.html", counts, request=request)
    return HttpResponse(html)
