"""The dashboard's Inbox tab: candidates proposed from captured conversation, and the
owner's never-remember phrases.

Like the memory card: every action is a POST that htmx sends from the candidate card (the
answer is the card again plus the tab counts out of band) and that also works as a plain
form post (the answer redirects back). Every rule is capture.services.review's.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from capture.models import Candidate, CandidateStatus, CaptureThread
from capture.selectors import candidates_for_owner, patterns_for_owner
from capture.services.review import (
    candidate_approve,
    candidate_get,
    candidate_reject,
    candidates_bulk,
    never_remember_add,
    never_remember_delete,
)
from foundation.errors import ErrorCode, ServiceError
from foundation.views import back, keyset_page, owner_actor, safe_next
from memories.models import Kind, ScopeType

EDIT_SCOPES = (ScopeType.GLOBAL, ScopeType.PROJECT)
MAX_PATTERNS_SHOWN = 200


def with_threads(candidates: list[Candidate]) -> list[Candidate]:
    """Attach each evidence item's thread (source and session) with one query per page."""
    ids = {item.get("thread_id") for c in candidates for item in c.evidence}
    threads = CaptureThread.objects.in_bulk([pk for pk in ids if isinstance(pk, int)])
    for candidate in candidates:
        candidate.dash_evidence = [
            {**item, "thread": threads.get(item.get("thread_id")), "when": _moment(item.get("at"))}
            for item in candidate.evidence
        ]
    return candidates


def _moment(value) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        return None


def _get(request: HttpRequest, candidate_id) -> Candidate:
    try:
        return candidate_get(actor=owner_actor(request), candidate_id=candidate_id)
    except ServiceError as error:
        raise Http404(error.message) from error


def _context(request: HttpRequest, candidate: Candidate, **extra) -> dict:
    with_threads([candidate])
    return {
        "c": candidate,
        "next": safe_next(request),
        "kinds": Kind.choices,
        "scopes": EDIT_SCOPES,
        **extra,
    }


def _card(
    request: HttpRequest, candidate: Candidate, *, oob: bool = False, **extra
) -> HttpResponse:
    html = render_to_string(
        "capture/_candidate.html", _context(request, candidate, **extra), request=request
    )
    if oob:
        html += render_to_string("dashboard/_counts.html", {"oob": True}, request=request)
    return HttpResponse(html)


def _standalone(
    request: HttpRequest, candidate: Candidate, *, status: int = 200, **extra
) -> HttpResponse:
    """Without JavaScript, the edit form (or a refused approval) is a page of its own."""
    context = _context(request, candidate, tab="inbox", **extra)
    return render(request, "capture/candidate_page.html", context, status=status)


def _inbox_context(request: HttpRequest) -> dict:
    actor = owner_actor(request)
    queryset = candidates_for_owner(actor=actor, status=CandidateStatus.PENDING).select_related(
        "replaces"
    )
    page = keyset_page(queryset, request.GET.get("cursor"))
    with_threads(page.items)
    patterns = list(patterns_for_owner(actor=actor)[:MAX_PATTERNS_SHOWN])
    return {
        "page": page, "patterns": patterns, "kinds": Kind.choices, "scopes": EDIT_SCOPES, "tab": "inbox",
        "next": reverse("dashboard:inbox"),
    }  # fmt: skip


@login_required
@require_GET
def inbox(request: HttpRequest) -> HttpResponse:
    """Pending candidates, newest first, with their evidence; the never-remember phrases."""
    context = _inbox_context(request)
    if request.htmx and request.GET.get("fragment") == "page":
        return render(request, "capture/inbox.html#page", context)
    return render(request, "capture/inbox.html", context)


def _inbox_answer(request: HttpRequest, *, notice: str = "", error: str = "") -> HttpResponse:
    """After a bulk or pattern action: htmx gets the inbox section and the counts, a plain
    post goes back with a message."""
    if request.htmx:
        context = {**_inbox_context(request), "notice": notice, "error": error}
        html = render_to_string("capture/inbox.html#inbox", context, request=request)
        html += render_to_string("dashboard/_counts.html", {"oob": True}, request=request)
        return HttpResponse(html)
    if error:
        messages.error(request, error)
    elif notice:
        messages.success(request, notice)
    return back(request, "dashboard:inbox")


@login_required
@require_GET
def candidate(request: HttpRequest, candidate_id) -> HttpResponse:
    """The card; ?mode=edit gives the edit-then-approve form."""
    found = _get(request, candidate_id)
    mode = (
        "edit"
        if request.GET.get("mode") == "edit" and found.status == CandidateStatus.PENDING
        else "view"
    )
    if request.htmx:
        return _card(request, found, mode=mode, draft=found.content)
    return _standalone(request, found, mode=mode, draft=found.content)


@login_required
@require_POST
def approve(request: HttpRequest, candidate_id) -> HttpResponse:
    found = _get(request, candidate_id)
    edited = request.POST.get("edit") == "yes"
    fields = {
        "visibility": "shared" if request.POST.get("shared") else "private",
        "replace": request.POST.get("replace") == "yes",
    }
    if edited:
        fields |= {
            "content": request.POST.get("content", ""),
            "kind": request.POST.get("kind") or None,
            "scope_type": request.POST.get("scope_type") or None,
            "scope_key": request.POST.get("scope_key", "").strip(),
        }
    try:
        decided = candidate_approve(actor=owner_actor(request), candidate_id=found.pk, **fields)
    except ServiceError as error:
        mode = "edit" if edited and error.code != ErrorCode.CONFLICT else "view"
        status = 409 if error.code == ErrorCode.CONFLICT else 400
        found = _get(request, found.pk)
        draft = fields.get("content", found.content)
        if request.htmx:  # htmx swaps 2xx answers only: the error rides in the card
            return _card(request, found, oob=True, mode=mode, draft=draft, error=error.message)
        if mode == "edit":
            return _standalone(
                request, found, mode=mode, draft=draft, error=error.message, status=status
            )
        messages.error(request, error.message)
        return back(request, "dashboard:inbox")
    if request.htmx:
        return _card(request, _get(request, decided.pk), oob=True)
    messages.success(request, _("Approved and saved as a memory."))
    return back(request, "dashboard:inbox")


@login_required
@require_POST
def reject(request: HttpRequest, candidate_id) -> HttpResponse:
    found = _get(request, candidate_id)
    try:
        candidate_reject(actor=owner_actor(request), candidate_id=found.pk)
    except ServiceError as error:
        if request.htmx:
            return _card(request, _get(request, found.pk), oob=True, error=error.message)
        messages.error(request, error.message)
        return back(request, "dashboard:inbox")
    if request.htmx:
        return _card(request, _get(request, found.pk), oob=True)
    messages.success(request, _("Rejected. It will not be proposed again."))
    return back(request, "dashboard:inbox")


@login_required
@require_POST
def bulk(request: HttpRequest) -> HttpResponse:
    action = request.POST.get("action", "")
    ids = request.POST.getlist("ids")
    if not ids:
        return _inbox_answer(request, error=_("Select at least one candidate first."))
    try:
        decided = candidates_bulk(
            actor=owner_actor(request), action=action, ids=ids,
            visibility="shared" if request.POST.get("shared") else "private",
        )  # fmt: skip
    except ServiceError as error:
        return _inbox_answer(request, error=error.message)
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
        return _inbox_answer(request, error=error.message)
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
        raise Http404(error.message) from error
    return _inbox_answer(request, notice=_("The phrase was removed."))
