"""The dashboard's Inbox tab: candidates proposed from captured conversation, and the
owner's never-remember phrases.

Like the memory card: every action is a POST that htmx sends from the candidate card (the
answer is the card again, with its real status, and `counts-changed` for the tab bar) and
that also works as a plain form post (the answer redirects back). Every rule is
capture.services.review's; the reads are capture.selectors'.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from capture.models import Candidate, CandidateStatus
from capture.selectors import inbox_for_owner, with_threads
from capture.services.review import (
    candidate_approve,
    candidate_get,
    candidate_reject,
    candidate_reopen,
    candidates_bulk,
    never_remember_add,
    never_remember_delete,
)
from foundation.errors import ErrorCode, ServiceError
from foundation.htmx import answer, refuses_bad_input, requested_fragment
from foundation.views import back, owner_actor, safe_next
from memories.models import Kind, ScopeType

EDIT_SCOPES = (ScopeType.GLOBAL, ScopeType.PROJECT)


def _get(request: HttpRequest, candidate_id) -> Candidate:
    try:
        return candidate_get(actor=owner_actor(request), candidate_id=candidate_id)
    except ServiceError as error:
        raise Http404(error.localized) from error


def _card(
    request: HttpRequest, candidate: Candidate, *, status: int = 200, changed=False, **extra
) -> HttpResponse:
    """The card: for htmx the fragment alone; without JavaScript the edit form (or a
    refused approval) is a page of its own."""
    with_threads([candidate])
    context = {
        "c": candidate, "next": safe_next(request), "kinds": Kind.choices, "scopes": EDIT_SCOPES,
        "tab": "inbox", **extra,
    }  # fmt: skip
    template = "capture/_candidate.html" if request.htmx else "capture/candidate_page.html"
    return answer(request, template, context, status=status, counts_changed=changed)


def _inbox(request: HttpRequest, *, fragment: str | None, changed=False, **extra) -> HttpResponse:
    found = inbox_for_owner(actor=owner_actor(request), cursor=request.GET.get("cursor"))
    context = {
        "page": found.page, "patterns": found.patterns, "kinds": Kind.choices,
        "scopes": EDIT_SCOPES, "tab": "inbox", "next": reverse("dashboard:inbox"), **extra,
    }  # fmt: skip
    return answer(request, "capture/inbox.html", context, fragment=fragment, counts_changed=changed)


@login_required
@require_GET
@refuses_bad_input
def inbox(request: HttpRequest) -> HttpResponse:
    """Pending candidates, newest first, with their evidence; the never-remember phrases."""
    return _inbox(request, fragment=requested_fragment(request, "page"))


def _inbox_answer(request: HttpRequest, *, notice: str = "", error: str = "") -> HttpResponse:
    """After a bulk or pattern action: htmx gets the inbox section (and the tab bar is told
    to re-fetch its counts), a plain post goes back with a message."""
    if request.htmx:
        return _inbox(request, fragment="inbox", changed=True, notice=notice, error=error)
    if error:
        messages.error(request, error)
    elif notice:
        messages.success(request, notice)
    return back(request, "dashboard:inbox")


@login_required
@require_GET
def candidate(request: HttpRequest, candidate_id) -> HttpResponse:
    """The card; ?mode=edit gives the edit-then-approve form (while it is pending)."""
    found = _get(request, candidate_id)
    editing = request.GET.get("mode") == "edit" and found.status == CandidateStatus.PENDING
    return _card(request, found, mode="edit" if editing else "view", draft=found.content)


def _approval(request: HttpRequest) -> dict:
    """The approve form's fields: shared or private, replace or not, and if the owner
    edited the statement, the edited fields."""
    fields = {
        "visibility": "shared" if request.POST.get("shared") else "private",
        "replace": request.POST.get("replace") == "yes",
    }
    if request.POST.get("edit") == "yes":
        fields |= {
            "content": request.POST.get("content", ""),
            "kind": request.POST.get("kind") or None,
            "scope_type": request.POST.get("scope_type") or None,
            "scope_key": request.POST.get("scope_key", "").strip(),
        }
    return fields


@login_required
@require_POST
def approve(request: HttpRequest, candidate_id) -> HttpResponse:
    found, fields = _get(request, candidate_id), _approval(request)
    try:
        decided = candidate_approve(actor=owner_actor(request), candidate_id=found.pk, **fields)
    except ServiceError as error:
        # An edit that was refused stays an edit; a conflict (decided meanwhile) does not.
        mode = "edit" if "content" in fields and error.code != ErrorCode.CONFLICT else "view"
        if not request.htmx and mode == "view":
            messages.error(request, error.localized)
            return back(request, "dashboard:inbox")
        found = _get(request, found.pk)
        return _card(
            request, found, status=error.http_status, changed=True, mode=mode,
            draft=fields.get("content", found.content), error=error.localized,
        )  # fmt: skip
    if request.htmx:
        return _card(request, _get(request, decided.pk), changed=True)
    messages.success(request, _("Approved and saved as a memory."))
    return back(request, "dashboard:inbox")


def _decide(request: HttpRequest, candidate_id, decide, done: str, *, changed_on_refusal: bool):
    """Run one owner decision on a candidate (`decide`, a service call) and answer with the
    card (htmx) or a message and the inbox: the refusal in the owner's language, or `done`."""
    found = _get(request, candidate_id)
    try:
        decide(actor=owner_actor(request), candidate_id=found.pk)
    except ServiceError as error:
        if not request.htmx:
            messages.error(request, error.localized)
            return back(request, "dashboard:inbox")
        found = _get(request, found.pk)
        return _card(
            request, found, status=error.http_status, changed=changed_on_refusal,
            error=error.localized,
        )  # fmt: skip
    if request.htmx:
        return _card(request, _get(request, found.pk), changed=True)
    messages.success(request, done)
    return back(request, "dashboard:inbox")


@login_required
@require_POST
def reject(request: HttpRequest, candidate_id) -> HttpResponse:
    done = _("Rejected. It will not be proposed again.")
    return _decide(request, candidate_id, candidate_reject, done, changed_on_refusal=True)


@login_required
@require_POST
def reopen(request: HttpRequest, candidate_id) -> HttpResponse:
    """Undo a rejection (`candidate_reopen`): the candidate is pending again."""
    done = _("Reopened: it is waiting in the inbox again.")
    return _decide(request, candidate_id, candidate_reopen, done, changed_on_refusal=False)


@login_required
@require_POST
def bulk(request: HttpRequest) -> HttpResponse:
    action, ids = request.POST.get("action", ""), request.POST.getlist("ids")
    if not ids:
        return _inbox_answer(request, error=_("Select at least one candidate first."))
    try:
        decided = candidates_bulk(
            actor=owner_actor(request), action=action, ids=ids,
            visibility="shared" if request.POST.get("shared") else "private",
        )  # fmt: skip
    except ServiceError as error:
        return _inbox_answer(request, error=error.localized)
    if action == "approve":
        notice = ngettext("Approved %(n)s candidate.", "Approved %(n)s candidates.", len(decided))
    else:
        notice = ngettext("Rejected %(n)s candidate.", "Rejected %(n)s candidates.", len(decided))
    return _inbox_answer(request, notice=notice % {"n": len(decided)})


@login_required
@require_POST
def pattern_add(request: HttpRequest) -> HttpResponse:
    try:
        row, expired = never_remember_add(
            actor=owner_actor(request), pattern=request.POST.get("pattern", "")
        )
    except ServiceError as error:
        return _inbox_answer(request, error=error.localized)
    notice = _("Extraction will never propose anything containing “%(p)s”.") % {"p": row.pattern}
    if expired:
        notice += " " + ngettext(
            "%(n)s pending candidate left the inbox.",
            "%(n)s pending candidates left the inbox.",
            expired,
        ) % {"n": expired}
    return _inbox_answer(request, notice=notice)


@login_required
@require_POST
def pattern_delete(request: HttpRequest, pattern_id: int) -> HttpResponse:
    try:
        never_remember_delete(actor=owner_actor(request), pattern_id=pattern_id)
    except ServiceError as error:
        raise Http404(error.localized) from error
    return _inbox_answer(request, notice=_("The phrase was removed."))
