"""The owner's inbox endpoints (DRF, `/api/owner/`). Thin: parse, call a capture service or
selector as the signed-in owner, shape the answer.

    GET    candidates/                 ?status=&agent=&project=&limit=&cursor= (newest first)
    GET    candidates/{id}/            one candidate with its evidence
    POST   candidates/{id}/approve/    {visibility, replace, content, kind, scope_type, scope_key}
    POST   candidates/{id}/reject/
    POST   candidates/bulk/            {action: approve|reject, ids: [...], visibility}
    GET    never-remember/             patterns;  POST {pattern};  DELETE never-remember/{id}/
    GET    rejections/                 remembered rejections;  DELETE rejections/{id}/ (forgive)
    GET    strip-markers/              the owner's pairs;  POST {start, end};  DELETE …/{id}/
"""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from capture.models import Candidate, NeverRememberPattern, RejectedFingerprint, StripMarker
from capture.selectors import (
    candidates_for_owner,
    patterns_for_owner,
    rejections_for_owner,
    strip_markers_for_owner,
)
from capture.services.review import (
    candidate_approve,
    candidate_get,
    candidate_reject,
    candidates_bulk,
    never_remember_add,
    never_remember_delete,
    rejection_forgive,
)
from capture.services.strip_markers import strip_marker_add, strip_marker_delete
from foundation.drf_door import (
    KeysetPagination,
    OwnerViewSet,
    StrictCharField,
    StrictSerializer,
    reject_unknown_params,
)
from memories.models import Kind, ScopeType, Visibility


def candidate_data(candidate: Candidate) -> dict:
    return {
        "id": str(candidate.pk),
        "status": candidate.status,
        "content": candidate.content,
        "kind": candidate.kind,
        "type": candidate.type,
        "scope_type": candidate.scope_type,
        "scope_key": candidate.scope_key,
        "rule": candidate.rule,
        "confidence": candidate.confidence,
        "screen_findings": candidate.screen_findings,
        "agents": candidate.agents,
        "evidence": candidate.evidence,
        "replaces": str(candidate.replaces_id) if candidate.replaces_id else None,
        "memory": str(candidate.memory_id) if candidate.memory_id else None,
        "approved_visibility": candidate.approved_visibility or None,
        "decided_at": candidate.decided_at,
        "created_at": candidate.created_at,
        "updated_at": candidate.updated_at,
    }


def candidate_detail(candidate: Candidate) -> dict:
    replaces = candidate.replaces
    return {
        **candidate_data(candidate),
        "replaces_memory": (
            {"id": str(replaces.pk), "content": replaces.content, "status": replaces.status,
             "trust": replaces.trust, "version": replaces.version}
            if replaces else None
        ),
    }  # fmt: skip


class ReplaceField(serializers.Field):
    """true (the memory the candidate names), a memory id, or false/null (no replacement)."""

    def to_internal_value(self, data):
        if data is None or isinstance(data, bool):
            return data
        if isinstance(data, str):
            return serializers.UUIDField().to_internal_value(data)
        self.fail("invalid")

    default_error_messages = {"invalid": "replace must be true, false or a memory id."}


class ApproveIn(StrictSerializer):
    visibility = serializers.ChoiceField(Visibility.choices, required=False, allow_null=True)
    replace = ReplaceField(required=False, allow_null=True)
    content = StrictCharField(required=False, trim_whitespace=False)
    kind = serializers.ChoiceField(Kind.choices, required=False, allow_null=True)
    scope_type = serializers.ChoiceField(ScopeType.choices, required=False, allow_null=True)
    scope_key = StrictCharField(required=False, allow_blank=True, allow_null=True)


class BulkIn(StrictSerializer):
    action = serializers.ChoiceField(["approve", "reject"])
    ids = serializers.ListField(child=StrictCharField(), allow_empty=False)
    visibility = serializers.ChoiceField(Visibility.choices, required=False, allow_null=True)


class PatternIn(StrictSerializer):
    pattern = StrictCharField()


class StripMarkerIn(StrictSerializer):
    start = StrictCharField()
    end = StrictCharField()


class CandidatePagination(KeysetPagination):
    time_field = "updated_at"


class CandidateViewSet(OwnerViewSet):
    """Candidate memories proposed from captured conversation, awaiting the owner."""

    lookup_value_regex = r"[^/]+"
    pagination_class = CandidatePagination
    serializer_classes = {"approve": ApproveIn, "bulk": BulkIn}

    def list(self, request):
        """Newest first. Filters: status (pending|approved|rejected|expired), agent, project."""
        reject_unknown_params(
            request, {"status", "agent", "project", *CandidatePagination.query_params}
        )
        queryset = candidates_for_owner(
            actor=self.actor,
            status=request.query_params.get("status", ""),
            agent=request.query_params.get("agent", ""),
            project=request.query_params.get("project", ""),
        )
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response([candidate_data(candidate) for candidate in page])

    def retrieve(self, request, pk=None):
        return Response(candidate_detail(candidate_get(actor=self.actor, candidate_id=pk)))

    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        """Approve into a confirmed memory (private unless visibility is shared); edit first
        with content/kind/scope; replace=true supersedes the memory the candidate names."""
        fields = {name: value for name, value in self.parse().items() if value is not None}
        candidate = candidate_approve(actor=self.actor, candidate_id=pk, **fields)
        return Response(
            candidate_detail(candidate_get(actor=self.actor, candidate_id=candidate.pk))
        )

    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        """Reject; the same statement is never proposed again (until forgiven)."""
        self.parse()
        return Response(candidate_detail(candidate_reject(actor=self.actor, candidate_id=pk)))

    @action(detail=False, methods=["post"])
    def bulk(self, request):
        """Approve or reject up to 100 candidates at once: all of them, or none."""
        fields = self.parse()
        decided = candidates_bulk(
            actor=self.actor,
            action=fields["action"],
            ids=fields["ids"],
            visibility=fields.get("visibility"),
        )
        return Response({"results": [candidate_data(candidate) for candidate in decided]})


def pattern_data(row: NeverRememberPattern) -> dict:
    return {"id": row.pk, "pattern": row.pattern, "created_at": row.created_at}


class NeverRememberViewSet(OwnerViewSet):
    """Phrases extraction never turns into candidates (case-insensitive substrings)."""

    lookup_value_regex = r"[^/]+"
    pagination_class = KeysetPagination
    serializer_classes = {"list": PatternIn, "create": PatternIn}

    def list(self, request):
        reject_unknown_params(request, set(KeysetPagination.query_params))
        page = self.paginate_queryset(patterns_for_owner(actor=self.actor))
        return self.get_paginated_response([pattern_data(row) for row in page])

    def create(self, request):
        """Add a pattern (idempotent); pending candidates it matches leave the inbox."""
        row, expired = never_remember_add(actor=self.actor, pattern=self.parse()["pattern"])
        return Response({**pattern_data(row), "expired_candidates": expired}, status=201)

    def destroy(self, request, pk=None):
        never_remember_delete(actor=self.actor, pattern_id=pk)
        return Response(status=204)


def rejection_data(row: RejectedFingerprint) -> dict:
    return {
        "id": row.pk,
        "fingerprint": row.fingerprint,
        "content": row.content,
        "created_at": row.created_at,
    }


class RejectionViewSet(OwnerViewSet):
    """Rejected statements extraction will not propose again; deleting one forgives it."""

    lookup_value_regex = r"[^/]+"
    pagination_class = KeysetPagination

    def list(self, request):
        reject_unknown_params(request, set(KeysetPagination.query_params))
        page = self.paginate_queryset(rejections_for_owner(actor=self.actor))
        return self.get_paginated_response([rejection_data(row) for row in page])

    def destroy(self, request, pk=None):
        rejection_forgive(actor=self.actor, rejection_id=pk)
        return Response(status=204)


def strip_marker_data(row: StripMarker) -> dict:
    return {"id": row.pk, "start": row.start, "end": row.end, "created_at": row.created_at}


class StripMarkerViewSet(OwnerViewSet):
    """Pairs fencing text other tools inject into prompts; capture drops what they enclose."""

    lookup_value_regex = r"[^/]+"
    pagination_class = KeysetPagination
    serializer_classes = {"list": StripMarkerIn, "create": StripMarkerIn}

    def list(self, request):
        reject_unknown_params(request, set(KeysetPagination.query_params))
        page = self.paginate_queryset(strip_markers_for_owner(actor=self.actor))
        return self.get_paginated_response([strip_marker_data(row) for row in page])

    def create(self, request):
        """Add a pair (idempotent); it applies to batches parsed from now on."""
        data = self.parse()
        row = strip_marker_add(actor=self.actor, start=data["start"], end=data["end"])
        return Response(strip_marker_data(row), status=201)

    def destroy(self, request, pk=None):
        strip_marker_delete(actor=self.actor, marker_id=pk)
        return Response(status=204)
