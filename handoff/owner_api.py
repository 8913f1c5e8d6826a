"""The owner's handoff endpoints (DRF, under /api/owner/; see docs/handoffs.md).

    GET  handoffs/               ?task_id=&state=active|open|resumed|expired&limit=&cursor=
    GET  handoffs/{id}/
    POST handoffs/{id}/expire/

Thin like every door: the rules are in `handoff.services`, the reads in `handoff.selectors`.
"""

from __future__ import annotations

from uuid import UUID

from rest_framework.decorators import action
from rest_framework.response import Response

from foundation.drf_door import (
    KeysetPagination,
    OwnerViewSet,
    reject_unknown_params,
)
from foundation.errors import not_found
from handoff.selectors import handoffs_for_owner
from handoff.services import handoff_expire
from handoff.shapes import capsule_shape


class HandoffViewSet(OwnerViewSet):
    """Handoff capsules agents left: list, read, expire."""

    lookup_value_regex = r"[0-9a-fA-F-]{32,36}"
    pagination_class = KeysetPagination

    def list(self, request):
        reject_unknown_params(request, {"task_id", "state", *KeysetPagination.query_params})
        capsules = handoffs_for_owner(
            owner=request.user,
            task_id=request.query_params.get("task_id") or None,
            state=request.query_params.get("state") or None,
        )
        page = self.paginate_queryset(capsules)
        return self.get_paginated_response([capsule_shape(capsule, "owner") for capsule in page])

    def retrieve(self, request, pk=None):
        try:
            capsule_id = UUID(pk)
        except ValueError:
            raise not_found("handoff") from None
        capsule = handoffs_for_owner(owner=request.user).filter(pk=capsule_id).first()
        if capsule is None:
            raise not_found("handoff")
        return Response(capsule_shape(capsule, "owner"))

    @action(detail=True, methods=["post"])
    def expire(self, request, pk=None):
        """Expire now, so no agent resumes it again; idempotent."""
        self.parse()
        return Response(capsule_shape(handoff_expire(actor=self.actor, capsule_id=pk), "owner"))
