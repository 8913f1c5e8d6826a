"""The memory card and its actions.

Each action is a POST that htmx sends from the card (the answer is the card again, with its
real status, and `counts-changed` for the tab bar) and that also works as a plain form post
(the answer redirects back to the page the form came from). Every rule is the service's;
this only translates.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.lists import bulk_form_of
from dashboard.readable import readable_message
from dashboard.selectors import with_links
from dashboard.siblings import announce_changed, event_mark
from dashboard.undo import remember_offer, undo_offer
from foundation.errors import ErrorCode, ServiceError
from foundation.htmx import answer, refuses_bad_input
from foundation.views import back, owner_actor, raise_404_if_missing, safe_next
from memories.selectors import memory_get, memory_history
from memories.services import memory_correct, memory_delete
from memories.services.undo import ACTIONS, memory_act, memory_undo

HISTORY_LIMIT = 50


def _get(request: HttpRequest, memory_id):
    try:
        return memory_get(actor=owner_actor(request), memory_id=memory_id)
    except ServiceError as error:
        raise_404_if_missing(error)
        raise


def _card(
    request: HttpRequest,
    memory,
    *,
    mode: str = "view",
    status: int = 200,
    counts_changed: bool = False,
    **extra,
) -> HttpResponse:
    """The card: for htmx the fragment alone; without JavaScript a card in a mode (edit,
    delete, history) is a page of its own."""
    if memory is not None:
        with_links([memory])
    context = {
        "m": memory, "mode": mode, "next": safe_next(request), "tab": "",
        "bulk_form": bulk_form_of(request.POST.get("bulk_form") or request.GET.get("bulk_form")),
        **extra,
    }  # fmt: skip
    template = "memories/_card.html" if request.htmx else "memories/card_page.html"
    return answer(request, template, context, status=status, counts_changed=counts_changed)


@login_required
@require_GET
def card(request: HttpRequest, memory_id) -> HttpResponse:
    """The card; for htmx `?as=row`, its one line (a row drawing itself again)."""
    memory = _get(request, memory_id)
    if request.htmx and request.GET.get("as") == "row":
        context = {"m": memory, "bulk_form": bulk_form_of(request.GET.get("bulk_form"))}
        return answer(request, "memories/_row.html", context)
    return _card(request, memory)


def _refused_action(request: HttpRequest, memory_id, error: ServiceError) -> HttpResponse:
    raise_404_if_missing(error)
    message = readable_message(request.user, error.localized)  # memories in words, not ids
    if request.htmx:
        memory = _get(request, memory_id)
        return _card(request, memory, error=message, status=error.http_status)
    messages.error(request, message)
    return back(request)


@login_required
@require_POST
def act(request: HttpRequest, memory_id, action: str) -> HttpResponse:
    """A reversible action; when it changed something, the answer offers its undo. The
    form carries the state its card showed: one that moved since is refused in place."""
    if action not in ACTIONS:
        raise Http404("No such action.")
    mark = event_mark(request.user)
    try:
        memory, event = memory_act(
            actor=owner_actor(request), memory_id=memory_id, action=action,
            expected_state=request.POST.get("state") or None,
        )  # fmt: skip
    except ServiceError as error:
        return _refused_action(request, memory_id, error)
    offer = undo_offer(request, memory, event, action)
    if request.htmx:
        response = _card(request, memory, counts_changed=True, undo=offer)
        return announce_changed(response, request.user, mark, besides=[memory.pk])
    if offer is not None:
        remember_offer(request, offer)  # shown once, on the page the post returns to
    return back(request)


@login_required
@require_POST
def undo(request: HttpRequest, memory_id) -> HttpResponse:
    """Take back the action that recorded `event`, through the services (`memory_undo`);
    refused with the reason, and nothing changed, when the memory changed since."""
    try:
        memory = memory_undo(
            actor=owner_actor(request), memory_id=memory_id, event=request.POST.get("event")
        )
    except ServiceError as error:
        return _refused_action(request, memory_id, error)
    if request.htmx:
        return _card(request, memory, counts_changed=True, notice=_("Undone."))
    messages.success(request, _("Undone."))
    return back(request)


@login_required
@require_http_methods(["GET", "POST"])
def correct(request: HttpRequest, memory_id) -> HttpResponse:
    """GET: the card as an inline edit form. POST: a new version, unless the memory changed
    since the form was rendered: the version it carried is the service's compare-and-set."""
    memory = _get(request, memory_id)
    if request.method == "GET":
        return _card(request, memory, mode="edit", draft=memory.content)
    content, rendered = request.POST.get("content", ""), request.POST.get("version", "")
    try:
        corrected = memory_correct(
            actor=owner_actor(request), memory_id=memory.pk, content=content,
            expected_version=int(rendered) if rendered.isdecimal() else rendered,
        )  # fmt: skip
    except ServiceError as exc:
        raise_404_if_missing(exc)
        status = 409 if exc.code in (ErrorCode.CONFLICT, ErrorCode.VERSION_CONFLICT) else 400
        error = (
            _changed_since(memory)
            if exc.code == ErrorCode.VERSION_CONFLICT
            else readable_message(request.user, exc.localized)
        )
        return _card(request, memory, mode="edit", draft=content, field_error=error, status=status)
    notice = _("Saved as version %(v)s.") % {"v": corrected.version}
    if request.htmx:
        return _card(request, corrected, counts_changed=True, notice=notice)
    messages.success(request, notice)
    return back(request)


def _changed_since(memory) -> str:
    return _(
        "This memory changed since you opened it (now version %(version)s, %(status)s). "
        "Your edit was not saved; reload it and edit again."
    ) % {"version": memory.version, "status": memory.status}


@login_required
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest, memory_id) -> HttpResponse:
    """GET: the explicit confirmation step. POST with confirm=yes: the hard delete."""
    memory = _get(request, memory_id)
    if request.method == "GET" or request.POST.get("confirm") != "yes":
        return _card(request, memory, mode="delete")
    memory_delete(actor=owner_actor(request), memory_id=memory.pk)
    if request.htmx:
        return _card(request, None, mode="deleted", counts_changed=True)
    messages.success(request, _("The memory and its earlier versions were deleted."))
    return back(request)


@login_required
@require_GET
@refuses_bad_input
def history(request: HttpRequest, memory_id) -> HttpResponse:
    """The memory's history, newest first; a cursor not of this memory's is refused (400)."""
    memory = _get(request, memory_id)
    page = memory_history(
        actor=owner_actor(request), memory_id=memory.pk, limit=HISTORY_LIMIT,
        cursor=request.GET.get("cursor") or None,
    )  # fmt: skip
    if request.htmx:
        return answer(request, "memories/_history.html", {"m": memory, "history": page})
    return _card(request, memory, history=page)
