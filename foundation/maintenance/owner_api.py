"""The owner API's retention endpoints (`/api/owner/retention/`): the windows of the whole
instance, and what recent cleanups removed."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.response import Response

from foundation.drf_door import OwnerViewSet, StrictSerializer, reject_unknown_params
from foundation.maintenance.retention import retention_overview, retention_window_set


class RetentionIn(StrictSerializer):
    value = serializers.IntegerField(
        allow_null=True, help_text="The window in the rule's unit; null resets it."
    )


class RetentionViewSet(OwnerViewSet):
    """Retention windows of the whole instance (instance owner only) and what recent
    cleanups removed. PATCH /retention/<rule>/ {"value": 48} sets a window; null resets it
    to the environment's default."""

    lookup_value_regex = r"[a-z0-9_]{1,100}"
    serializer_classes = {"partial_update": RetentionIn, "update": RetentionIn}

    def list(self, request):
        reject_unknown_params(request, set())
        return Response(retention_overview(actor=self.actor))

    def partial_update(self, request, pk=None):
        return Response(
            retention_window_set(actor=self.actor, rule=pk, value=self.parse()["value"])
        )

    update = partial_update
