"""The owner's memory endpoints (DRF, `/api/owner/memories/`).

Thin, like every door: parse the request, call one service or selector as the signed-in
owner, shape the answer. Trust, scope, secrets, size and history rules all live in
`memories.services`; what the owner may see lives in `memories.selectors`.

    GET    memories/                 list, filtered, keyset-paged (-updated_at, id)
    POST   memories/                 remember (the owner's own write) -> receipt
    GET    memories/{id}/            one memory, its links and its version chain
    DELETE memories/{id}/?confirm=true, POST memories/{id}/delete/ {"confirm": true}
    POST   memories/{id}/confirm|lock|unlock|restore/
    POST   memories/{id}/correct/    {content, value, kind, tags, retrieval_hints, reason,
                                      expected_version}
    POST   memories/{id}/archive/    {reason}
    POST   memories/{id}/link/       {to_id | uri, relation}
    GET    memories/{id}/history/    ?limit=&cursor=
"""

from __future__ import annotations

from uuid import UUID

from django.db.models import Q
from django.utils.translation import gettext_noop
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.drf_door import (
    KeysetPagination,
    OwnerViewSet,
    StrictCharField,
    StrictSerializer,
    query_choices,
    reject_unknown_params,
)
from foundation.errors import LIMIT_RANGE, not_found, validation_error
from memories.contract import HISTORY_DEFAULT_LIMIT
from memories.models import (
    ConfidenceBasis,
    Kind,
    Memory,
    MemoryLink,
    MemoryType,
    Relation,
    ScopeType,
    Status,
    Trust,
    Visibility,
)
from memories.selectors import (
    HISTORY_MAX_LIMIT,
    TEXT_FILTERS,
    MemoryFilters,
    memories_for_owner,
    memories_visible_to,
    memory_get,
    memory_history,
    version_chain_ids,
)
from memories.services import (
    memory_archive,
    memory_confirm,
    memory_correct,
    memory_delete,
    memory_link,
    memory_lock,
    memory_remember,
    memory_restore,
    memory_unlock,
)
from memories.shapes import event_shape, link_shape, memory_shape

MAX_LINKS_SHOWN = 100
ENUM_FILTERS = {
    "kind": Kind,
    "trust": Trust,
    "status": Status,
    "scope_type": ScopeType,
    "visibility": Visibility,
}
# Receipt actions that wrote a new row (201); "duplicate" and "unchanged" wrote nothing (200).
WRITING_ACTIONS = {"created", "replaced", "merged", "disputed"}


# --- output --------------------------------------------------------------------------------


def memory_detail(memory: Memory) -> dict:
    """A memory with its links (both directions) and its version chain."""
    links = list(
        MemoryLink.objects.filter(owner_id=memory.owner_id)
        .filter(Q(from_memory=memory) | Q(to_memory=memory))
        .order_by("-created_at", "-id")[: MAX_LINKS_SHOWN + 1]
    )
    newer = Memory.objects.filter(owner_id=memory.owner_id, supersedes=memory).order_by("-version")
    return {
        **memory_shape(memory, "owner"),
        # This memory and every earlier version it supersedes, newest first.
        "version_chain": [str(pk) for pk in version_chain_ids(memory)],
        "superseded_by": [str(pk) for pk in newer.values_list("pk", flat=True)],
        "links": [link_shape(link, "owner") for link in links[:MAX_LINKS_SHOWN]],
        "links_truncated": len(links) > MAX_LINKS_SHOWN,
    }


# --- input ---------------------------------------------------------------------------------


def _optional_choice(choices, **extra):
    return serializers.ChoiceField(choices.choices, required=False, **extra)


def _string_list():
    # Items are trimmed, bounded and de-duplicated by the service; here only the type.
    return serializers.ListField(
        child=StrictCharField(allow_blank=True, trim_whitespace=False),
        required=False,
        allow_null=True,
    )


class RememberIn(StrictSerializer):
    content = StrictCharField(trim_whitespace=False)
    kind = serializers.ChoiceField(Kind.choices)
    type = _optional_choice(MemoryType, allow_null=True)
    scope_type = _optional_choice(ScopeType, allow_null=True)
    # initial=None: the browsable API's template shows null, which means "none", where an
    # empty string would be refused.
    scope_key = StrictCharField(required=False, allow_blank=True, allow_null=True, initial=None)
    key = StrictCharField(required=False, allow_null=True, initial=None)
    value = serializers.JSONField(required=False, allow_null=True)
    write_mode = serializers.ChoiceField(["replace", "merge"], required=False, allow_null=True)
    expected_version = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    idempotency_key = StrictCharField(required=False, allow_null=True, max_length=200, initial=None)
    tags = _string_list()
    retrieval_hints = _string_list()
    confidence = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    confidence_basis = _optional_choice(ConfidenceBasis, allow_null=True)
    trust = _optional_choice(Trust, allow_null=True)
    visibility = _optional_choice(Visibility, allow_null=True)


class CorrectIn(StrictSerializer):
    content = StrictCharField(trim_whitespace=False)
    value = serializers.JSONField(required=False, allow_null=True)
    kind = _optional_choice(Kind, allow_null=True)
    tags = _string_list()
    retrieval_hints = _string_list()
    reason = StrictCharField(required=False, allow_blank=True, allow_null=True)
    expected_version = serializers.IntegerField(required=False, allow_null=True, min_value=0)


class ArchiveIn(StrictSerializer):
    reason = StrictCharField(required=False, allow_blank=True, allow_null=True)


class LinkIn(StrictSerializer):
    relation = serializers.ChoiceField(Relation.choices)
    to_id = serializers.UUIDField(required=False, allow_null=True)
    uri = StrictCharField(required=False, allow_blank=True, allow_null=True)


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only: a permanent delete is not confirmed by "yes" or 1."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class DeleteIn(StrictSerializer):
    # Not required, so that a missing confirmation gets the explanatory error below.
    confirm = StrictBooleanField(
        required=False, default=False, help_text="Must be true: deleting is permanent."
    )


# --- the endpoints -------------------------------------------------------------------------


class MemoryPagination(KeysetPagination):
    time_field = "updated_at"


def _memory_id(pk) -> UUID:
    """An id from the URL path; one that is not a UUID names no memory."""
    try:
        return UUID(str(pk))
    except ValueError:
        raise not_found() from None


def _filtered(request, actor):
    reject_unknown_params(request, {*ENUM_FILTERS, *TEXT_FILTERS, *MemoryPagination.query_params})
    enums = {
        name: tuple(query_choices(request, name, choices)) for name, choices in ENUM_FILTERS.items()
    }
    text = {name: request.query_params.get(name, "").strip() for name in TEXT_FILTERS}
    return memories_for_owner(actor, MemoryFilters(**enums, **text))


class MemoryViewSet(OwnerViewSet):
    """The owner's memories: read everything, remember, and exercise the owner's authority
    (confirm, lock, unlock, correct, archive, restore, delete, link)."""

    lookup_value_regex = r"[^/]+"
    pagination_class = MemoryPagination
    serializer_classes = {
        "list": RememberIn,  # the browsable API's form for POST on the same URL
        "create": RememberIn,
        "correct": CorrectIn,
        "archive": ArchiveIn,
        "link": LinkIn,
        "destroy": DeleteIn,
        "remove": DeleteIn,
    }

    def get_queryset(self):
        return memories_visible_to(self.actor)

    def list(self, request):
        """Memories, newest change first. Filters: kind, trust, status, scope_type,
        visibility (repeat or comma-separate values), scope_key, project, source_agent, key,
        q (substring of the content); paged with limit (≤ 100) and cursor."""
        page = self.paginate_queryset(_filtered(request, self.actor))
        return self.get_paginated_response([memory_shape(memory, "owner") for memory in page])

    def create(self, request):
        """The owner's own write: trusted as confirmed unless `trust` says otherwise."""
        receipt = memory_remember(actor=self.actor, **self.parse())
        status = 201 if receipt.evolution["action"] in WRITING_ACTIONS else 200
        return Response(receipt.as_dict(), status=status)

    def retrieve(self, request, pk=None):
        memory = memory_get(actor=self.actor, memory_id=_memory_id(pk))
        return Response(memory_detail(memory))

    def _changed(self, memory: Memory) -> Response:
        return Response(memory_detail(memory))

    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        self.parse()
        return self._changed(memory_confirm(actor=self.actor, memory_id=_memory_id(pk)))

    @action(detail=True, methods=["post"])
    def lock(self, request, pk=None):
        self.parse()
        return self._changed(memory_lock(actor=self.actor, memory_id=_memory_id(pk)))

    @action(detail=True, methods=["post"])
    def unlock(self, request, pk=None):
        self.parse()
        return self._changed(memory_unlock(actor=self.actor, memory_id=_memory_id(pk)))

    @action(detail=True, methods=["post"])
    def correct(self, request, pk=None):
        """A new version that supersedes this one; answers with the new version."""
        fields = self.parse()
        return self._changed(memory_correct(actor=self.actor, memory_id=_memory_id(pk), **fields))

    @action(detail=True, methods=["post"])
    def archive(self, request, pk=None):
        fields = self.parse()
        return self._changed(memory_archive(actor=self.actor, memory_id=_memory_id(pk), **fields))

    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        self.parse()
        return self._changed(memory_restore(actor=self.actor, memory_id=_memory_id(pk)))

    @action(detail=True, methods=["post"])
    def link(self, request, pk=None):
        fields = self.parse()
        link = memory_link(actor=self.actor, from_id=_memory_id(pk), **fields)
        return Response(link_shape(link, "owner"))

    @action(detail=True, methods=["get"])
    def history(self, request, pk=None):
        """Events of this memory and its earlier versions, newest first."""
        reject_unknown_params(request, {"limit", "cursor"})
        raw_limit = request.query_params.get("limit", str(HISTORY_DEFAULT_LIMIT))
        if not (raw_limit.isascii() and raw_limit.isdigit()):
            raise validation_error(LIMIT_RANGE, field="limit", limit=HISTORY_MAX_LIMIT)
        page = memory_history(
            actor=self.actor,
            memory_id=_memory_id(pk),
            limit=int(raw_limit),
            cursor=request.query_params.get("cursor") or None,
        )
        events = [event_shape(event, "owner") for event in page.events]
        return Response({"events": events, "next_cursor": page.next_cursor})

    def destroy(self, request, pk=None):
        """Hard delete, confirmed in the body ({"confirm": true}) or as ?confirm=true."""
        if not request.data and "confirm" in request.query_params:
            reject_unknown_params(request, {"confirm"})
            confirmed = {"true": True, "false": False}.get(request.query_params["confirm"])
            if confirmed is None:
                raise validation_error(
                    gettext_noop("confirm must be true or false."), field="confirm"
                )
        else:
            confirmed = self.parse()["confirm"]
        return self._delete(pk, confirmed)

    @action(detail=True, methods=["post"], url_path="delete", url_name="delete")
    def remove(self, request, pk=None):
        """Hard delete: send {"confirm": true}."""
        return self._delete(pk, self.parse()["confirm"])

    def _delete(self, pk, confirmed: bool) -> Response:
        if confirmed is not True:
            raise validation_error(
                gettext_noop(
                    "Deleting is permanent (the content is scrubbed from history too): "
                    'send "confirm": true.'
                ),
                field="confirm",
            )
        deleted_id = memory_delete(actor=self.actor, memory_id=_memory_id(pk))
        return Response({"id": deleted_id, "deleted": True})
