"""Review: the owner's answers to its proposals (merge, still true, archive; keep mine, take
the new one, both are true for a conflict; dismiss).

htmx gets the proposal again in its answered state (with its real status, and
`counts-changed` for the tab bar); a plain form post redirects back to Review. The rules
are `memories.services.proposals`'.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.review import conflict_cards
from dashboard.selectors import with_links
from dashboard.siblings import announce_changed, event_mark
from foundation.errors import ServiceError
from foundation.htmx import answer
from foundation.views import owner_actor, raise_404_if_missing
from memories.models import ProposalKind, ReviewProposal
from memories.selectors import proposal_memories
from memories.services.proposals import proposal_accept, proposal_dismiss, proposal_get


def _fragment(
    request: HttpRequest, proposal: ReviewProposal, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {"proposal": proposal, "error": error, "next": reverse("dashboard:review")}
    if proposal.kind == ProposalKind.CONFLICT:
        (context["conflict"],) = conflict_cards(request.user, [proposal])
        with_links(context["conflict"].memories)
        template = "memories/_conflict.html"
    else:
        context["memories"] = with_links(proposal_memories(proposal))
        template = "memories/_proposal.html"
    return answer(request, template, context, status=status, counts_changed=True)


def _decide(request: HttpRequest, proposal_id: int, verb: str) -> ReviewProposal:
    actor = owner_actor(request)
    if verb == "accept":
        return proposal_accept(
            actor=actor, proposal_id=proposal_id,
            keep=request.POST.get("keep") or None, resolution=request.POST.get("resolution") or None,
        )  # fmt: skip
    if verb == "dismiss":
        return proposal_dismiss(actor=actor, proposal_id=proposal_id)
    raise Http404("No such answer.")


@login_required
@require_POST
def answer_proposal(request: HttpRequest, proposal_id: int, verb: str) -> HttpResponse:
    """accept (keep=<memory id> for a near-duplicate, resolution=verify|archive for a stale
    memory, resolution=keep_old|take_new|both_true for a conflict) or dismiss."""
    mark = event_mark(request.user)
    try:
        proposal = _decide(request, proposal_id, verb)
    except ServiceError as error:
        raise_404_if_missing(error)
        if not request.htmx:
            messages.error(request, error.localized)
            return redirect("dashboard:review")
        proposal = proposal_get(actor=owner_actor(request), proposal_id=proposal_id)
        return _fragment(request, proposal, error=error.localized, status=error.http_status)
    if request.htmx:  # the memories it changed, shown elsewhere on the page, redraw too
        return announce_changed(_fragment(request, proposal), request.user, mark)
    return redirect("dashboard:review")
