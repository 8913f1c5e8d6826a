"""Bulk review: one action over the memories or proposals the owner selected on a list.

The selection is one item, a range, every card on the page (`scope=page`: the ids the
page's cards carry), or every item matching the list's filters (`scope=matching`: read
again on the server, newest first, at most `MAX_BULK_ITEMS`). Each item goes through its
own service call (`memories.services.bulk`), and the answer reports every outcome.

htmx gets the outcome in the bar's status region (`#bulk-status-<list>`) with
`counts-changed` and `bulk-done-<list>`, on which the list re-renders itself in place; a
plain form post redirects back with messages. A delete asks first (`confirm=yes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from django_htmx.http import trigger_client_event

from dashboard.lists import (
    MEMORY,
    bulk_list,
    filter_params,
    item_labels,
    list_total,
    matching_ids,
)
from dashboard.readable import readable_message
from dashboard.undo import bulk_undo_offer, remember_offer
from foundation.errors import ServiceError, validation_error
from foundation.htmx import answer
from foundation.views import back, owner_actor, safe_next
from memories.contract import MAX_BULK_ITEMS
from memories.services.bulk import (
    DONE,
    BulkResult,
    memories_bulk,
    memories_bulk_undo,
    proposals_bulk,
)

SCOPES = ("selected", "page", "matching")
MAX_LISTED_IN_MESSAGES = 10
PAST = {
    "confirm": gettext_lazy("Confirmed"), "lock": gettext_lazy("Locked"),
    "archive": gettext_lazy("Archived"), "restore": gettext_lazy("Restored"),
    "delete": gettext_lazy("Deleted"), "dismiss": gettext_lazy("Dismissed"),
    "undo": gettext_lazy("Undone"),
}  # fmt: skip


@dataclass
class Selection:
    name: str
    kind: str
    action: str
    scope: str
    ids: list[str]
    matched: int | None = None  # scope=matching: how many the filters matched in all
    labels: dict[str, str] = field(default_factory=dict)


def _selection(request: HttpRequest) -> Selection:
    """What the form asked for; a list, action or scope not offered is refused, and so is
    an empty selection (once, in the bar, never per card)."""
    actor, post = owner_actor(request), request.POST
    name, action, scope = post.get("list", ""), post.get("action", ""), post.get("scope", "")
    found = bulk_list(name)
    if action not in found.actions:
        raise validation_error(_("Choose one of the actions this list offers."), field="action")
    selection = Selection(name, found.kind, action, scope if scope in SCOPES else "selected", [])
    if selection.scope == "matching":
        params = filter_params(post.get("filter", ""))
        selection.matched = list_total(actor, name, params)
        selection.ids = matching_ids(actor, name, params, limit=MAX_BULK_ITEMS)
    else:
        selection.ids = post.getlist("page_ids" if selection.scope == "page" else "ids")
    if not selection.ids:
        empty = _("Nothing matches this list's filters now.") if scope == "matching" else None
        raise validation_error(empty or _("Select at least one item first."), field="ids")
    if len(selection.ids) <= MAX_BULK_ITEMS:
        selection.labels = item_labels(actor, found.kind, selection.ids)
    return selection


def _summary(selection: Selection, result: BulkResult) -> str:
    text = _("%(action)s: %(done)s done, %(refused)s refused, %(missing)s not found.") % {
        "action": PAST[result.action], "done": result.done, "refused": result.refused,
        "missing": result.not_found,
    }  # fmt: skip
    if selection.matched is not None and selection.matched > len(selection.ids):
        text += " " + _(
            "It ran over the newest %(n)s of the %(total)s matching; run it again for the rest."
        ) % {"n": len(selection.ids), "total": selection.matched}
    return text


def _rows(selection: Selection, result: BulkResult, user) -> list[dict]:
    """Each item named by its excerpt, and a refusal's ids in words (never a raw UUID)."""
    labels = selection.labels
    return [
        {
            "item": item,
            "label": labels.get(item.id) or readable_message(user, item.id),
            "message": readable_message(user, item.message) if item.message else "",
        }
        for item in result.items
    ]


def _refused(request: HttpRequest, error: ServiceError) -> HttpResponse:
    if request.htmx:
        context = {"error": error.localized, "tab": ""}
        return answer(request, "dashboard/bulk.html", context, fragment="result", status=400)
    messages.error(request, error.localized)
    return back(request)


def _confirm_delete(request: HttpRequest, selection: Selection) -> HttpResponse:
    """The explicit step before a bulk hard delete. It carries the ids it names, so what
    the owner confirms is exactly what goes (not whatever matches a moment later)."""
    context = {
        "selection": selection, "confirm": True, "tab": "", "next": safe_next(request),
        "fields": [("list", selection.name), ("action", selection.action), ("scope", "selected")],
        "repeated": [("ids", pk) for pk in selection.ids],
    }  # fmt: skip
    return answer(request, "dashboard/bulk.html", context, fragment="confirm")


def _done(request: HttpRequest, selection: Selection, result: BulkResult) -> HttpResponse:
    summary = _summary(selection, result)
    offer = bulk_undo_offer(request, selection.name, result)
    if request.htmx:
        context = {
            "summary": summary,
            "rows": _rows(selection, result, request.user),
            "result": result,
            "tab": "",
            "offer": offer,
        }
        response = answer(request, "dashboard/bulk.html", context, fragment="result",
                          counts_changed=bool(result.done))  # fmt: skip
        return trigger_client_event(response, f"bulk-done-{selection.name}")
    messages.success(request, summary)
    if offer is not None:
        remember_offer(request, offer)  # the page it returns to offers "Undo" once
    problems = [
        row for row in _rows(selection, result, request.user) if row["item"].outcome != DONE
    ]
    for row in problems[:MAX_LISTED_IN_MESSAGES]:
        messages.error(request, f"{row['label']}: {_reason(row)}")
    if len(problems) > MAX_LISTED_IN_MESSAGES:
        left = len(problems) - MAX_LISTED_IN_MESSAGES
        messages.error(request, _("…and %(n)s more not done.") % {"n": left})
    return back(request)


def _reason(row) -> str:
    return row["message"] if row["item"].outcome == "refused" else _("not found")


@login_required
@require_POST
def bulk(request: HttpRequest) -> HttpResponse:
    """list, action, scope (selected | page | matching), ids / page_ids / filter, next;
    confirm=yes for a delete."""
    try:
        selection = _selection(request)
        if selection.action == "delete" and request.POST.get("confirm") != "yes":
            return _confirm_delete(request, selection)
        run = memories_bulk if selection.kind == MEMORY else proposals_bulk
        result = run(actor=owner_actor(request), action=selection.action, ids=selection.ids)
    except ServiceError as error:
        return _refused(request, error)
    return _done(request, selection, result)


@login_required
@require_POST
def bulk_undo(request: HttpRequest) -> HttpResponse:
    """list, undo ("<memory id>:<event id>", repeated), next: take a bulk action back, each
    item through `memory_undo`; one that changed since is refused and left as it is."""
    try:
        name = request.POST.get("list", "")
        if bulk_list(name).kind != MEMORY:
            raise validation_error(_("There is no action to undo here."), field="list")
        result = memories_bulk_undo(actor=owner_actor(request), undo=request.POST.getlist("undo"))
    except ServiceError as error:
        return _refused(request, error)
    ids = [item.id for item in result.items]
    labels = item_labels(owner_actor(request), MEMORY, ids)
    selection = Selection(name, MEMORY, "undo", "selected", ids, labels=labels)
    return _done(request, selection, result)
