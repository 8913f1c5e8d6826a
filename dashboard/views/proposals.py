"""Review: the owner's answers to compaction's proposals (merge, still true, archive, dismiss).

htmx gets the proposal again in its answered state plus the tab counts out of band; a
plain form post redirects back to Review. The rules are `memories.services.proposals`'.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.views.memory_tabs import with_links
from foundation.errors import ErrorCode, ServiceError
from foundation.views import owner_actor
from memories.models import Memory, ReviewProposal
from memories.services.proposals import proposal_accept, proposal_dismiss, proposal_get


def proposal_memories(proposal: ReviewProposal) -> list[Memory]:
    """The proposal's memories of its owner, in the proposal's order."""
    found = Memory.objects.in_bulk(list(proposal.memory_ids))
    by_id = {
        str(pk): memory for pk, memory in found.items() if memory.owner_id == proposal.owner_id
    }
    return [by_id[pk] for pk in proposal.memory_ids if pk in by_id]


def _fragment(request: HttpRequest, proposal: ReviewProposal, *, error: str = "") -> HttpResponse:
    memories = with_links(proposal_memories(proposal))
    context = {
        "proposal": proposal,
        "memories": memories,
        "error": error,
        "next": reverse("dashboard:review"),
    }
    html = render_to_string("memories/_proposal.html", context, request=request)
    counts = {"oob": True}
    html += render_to_string("dashboard/_counts.html", counts, request=request)
    return HttpResponse(html)


@login_required
@require_POST
def answer(request: HttpRequest, proposal_id: int, verb: str) -> HttpResponse:
    """accept (keep=<memory id> for a near-duplicate, resolution=verify|archive for a stale
    memory) or dismiss."""
    actor = owner_actor(request)
    try:
        if verb == "accept":
            proposal = proposal_accept(
                actor=actor, proposal_id=proposal_id,
                keep=request.POST.get("keep") or None, resolution=request.POST.get("resolution") or None,
            )  # fmt: skip
        elif verb == "dismiss":
            proposal = proposal_dismiss(actor=actor, proposal_id=proposal_id)
        else:
            raise Http404("No such answer.")
    except ServiceError as error:
        if error.code == ErrorCode.NOT_FOUND:
            raise Http404(error.message) from error
        if request.htmx:
            return _fragment(
                request, proposal_get(actor=actor, proposal_id=proposal_id), error=error.message
            )
        messages.error(request, error.message)
        return redirect("dashboard:review")
    if request.htmx:
        return _fragment(request, proposal)
    return redirect("dashboard:review")
