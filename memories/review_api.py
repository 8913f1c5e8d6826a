"""The owner's answers to what Review proposes (DRF, `/api/owner/proposals/`).

    GET  proposals/               ?status=pending|accepted|dismissed|obsolete (default pending)&kind=&limit=&cursor=
                                  {"results", "count" (every proposal the filters match),
                                   "next_cursor", "next"}
    GET  proposals/{id}/
    POST proposals/{id}/accept/   near_duplicate: {"keep": memory id (optional)}
                                  stale: {"resolution": "verify" | "archive"}
                                  conflict: {"resolution": "keep_old" | "take_new" | "both_true"}
    POST proposals/{id}/dismiss/  never proposed again

The rules are `memories.services.proposals`'.
"""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.drf_door import (
    KeysetPagination,
    OwnerViewSet,
    StrictCharField,
    StrictSerializer,
    reject_unknown_params,
)
from foundation.errors import ONE_OF, validation_error
from memories.models import ProposalKind, ProposalStatus, ReviewProposal
from memories.services.proposals import (
    CONFLICT_RESOLUTIONS,
    RESOLUTIONS,
    proposal_accept,
    proposal_data,
    proposal_dismiss,
    proposal_get,
)


class ProposalAcceptIn(StrictSerializer):
    keep = StrictCharField(required=False, allow_blank=True, max_length=40,
                           help_text="near_duplicate: the memory to keep (default: the most trusted).")  # fmt: skip
    resolution = serializers.ChoiceField(
        choices=[*RESOLUTIONS, *CONFLICT_RESOLUTIONS], required=False,
        help_text="stale: verify (still true) or archive. conflict: keep_old (the old memory "
        "stands, the new one is archived), take_new (the new one replaces the old) or "
        "both_true (both stand, never raised again).",
    )  # fmt: skip


class ProposalViewSet(OwnerViewSet):
    """What Review asks the owner: near-duplicates to merge, stale memories, conflicts."""

    lookup_value_regex = r"[0-9]{1,18}"
    pagination_class = KeysetPagination
    serializer_classes = {"accept": ProposalAcceptIn}

    def list(self, request):
        reject_unknown_params(request, {"status", "kind", *KeysetPagination.query_params})
        status = request.query_params.get("status") or ProposalStatus.PENDING
        if status not in ProposalStatus.values:
            raise validation_error(
                ONE_OF, field="status", name="status", choices=", ".join(ProposalStatus.values)
            )
        proposals = ReviewProposal.objects.filter(owner=request.user, status=status)
        kind = request.query_params.get("kind")
        if kind:
            if kind not in ProposalKind.values:
                raise validation_error(
                    ONE_OF, field="kind", name="kind", choices=", ".join(ProposalKind.values)
                )
            proposals = proposals.filter(kind=kind)
        page = self.paginate_queryset(proposals)
        response = self.get_paginated_response([proposal_data(proposal) for proposal in page])
        response.data["count"] = proposals.count()
        return response

    def retrieve(self, request, pk=None):
        return Response(proposal_data(proposal_get(actor=self.actor, proposal_id=pk)))

    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        data = self.parse()
        proposal = proposal_accept(
            actor=self.actor,
            proposal_id=pk,
            keep=data.get("keep") or None,
            resolution=data.get("resolution"),
        )
        return Response(proposal_data(proposal))

    @action(detail=True, methods=["post"])
    def dismiss(self, request, pk=None):
        self.parse()
        return Response(proposal_data(proposal_dismiss(actor=self.actor, proposal_id=pk)))
