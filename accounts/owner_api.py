"""The owner API's access-token endpoints (`/api/owner/tokens/`)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import PersonalAccessToken, Scope
from accounts.tokens import MAX_EXPIRY_DAYS, token_create, token_revoke
from foundation.drf_door import (
    KeysetPagination,
    OwnerViewSet,
    StrictCharField,
    StrictSerializer,
    reject_unknown_params,
)
from foundation.errors import not_found, validation_error


def token_state(token: PersonalAccessToken) -> str:
    if token.is_revoked:
        return "revoked"
    return "expired" if token.is_expired else "usable"


def token_data(token: PersonalAccessToken) -> dict:
    """A token as the owner sees it: never the secret, its hash or its lookup prefix."""
    return {
        "id": token.pk,
        "name": token.name,
        "purpose": token.purpose,
        "agent_name": token.agent_name,
        "scopes": token.scopes,
        "allowed_projects": token.allowed_projects,
        "state": token_state(token),
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        "revoked_at": token.revoked_at,
        "last_used_at": token.last_used_at,
        "last_refusal": (
            {**token.last_refusal, "at": token.last_refusal_at} if token.last_refusal_at else None
        ),
    }


class TokenIn(StrictSerializer):
    name = StrictCharField(max_length=100)
    purpose = StrictCharField(max_length=300, required=False, allow_blank=True)
    agent_name = StrictCharField(max_length=100)
    scopes = serializers.ListField(child=serializers.ChoiceField(Scope.choices), allow_empty=False)
    allowed_projects = serializers.ListField(
        child=StrictCharField(max_length=300), required=False, max_length=100
    )
    expires_in_days = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_EXPIRY_DAYS,
        help_text="Days until expiry; the default is CONTINUITY_TOKEN_DEFAULT_DAYS.",
    )  # fmt: skip
    expires_at = serializers.DateTimeField(required=False, allow_null=True)


class TokenViewSet(OwnerViewSet):
    """Access tokens for agents: create (the secret is shown once), list, read, revoke."""

    lookup_value_regex = r"[0-9]{1,18}"
    pagination_class = KeysetPagination
    serializer_classes = {"list": TokenIn, "create": TokenIn}
    STATES = ("usable", "expired", "revoked")

    def get_queryset(self):
        return PersonalAccessToken.objects.filter(owner=self.request.user)

    def list(self, request):
        reject_unknown_params(request, {"state", "agent_name", *KeysetPagination.query_params})
        tokens = self.get_queryset()
        state = request.query_params.get("state")
        if state:
            if state not in self.STATES:
                raise validation_error(
                    gettext_noop("state must be one of: %(choices)s."),
                    field="state", choices=", ".join(self.STATES),
                )  # fmt: skip
            tokens = tokens.filter(self._state_filter(state))
        if request.query_params.get("agent_name"):
            tokens = tokens.filter(agent_name=request.query_params["agent_name"])
        page = self.paginate_queryset(tokens)
        return self.get_paginated_response([token_data(token) for token in page])

    @staticmethod
    def _state_filter(state: str) -> Q:
        now = timezone.now()
        return {
            "usable": Q(revoked_at__isnull=True, expires_at__gt=now),
            "expired": Q(revoked_at__isnull=True, expires_at__lte=now),
            "revoked": Q(revoked_at__isnull=False),
        }[state]

    def create(self, request):
        fields = {name: value for name, value in self.parse().items() if value is not None}
        if "expires_at" not in fields and "expires_in_days" not in fields:
            fields["expires_in_days"] = settings.CONTINUITY_TOKEN_DEFAULT_DAYS
        token, raw = token_create(actor=self.actor, **fields)
        # The secret is in this one response only: keep it out of every cache.
        return Response(
            {**token_data(token), "token": raw}, status=201, headers={"Cache-Control": "no-store"}
        )

    def retrieve(self, request, pk=None):
        token = self.get_queryset().filter(pk=int(pk)).first()
        if token is None:
            raise not_found("token")
        return Response(token_data(token))

    @action(detail=True, methods=["post"])
    def revoke(self, request, pk=None):
        """Revoke now; idempotent (a second revoke keeps the first time)."""
        self.parse()
        return Response(token_data(token_revoke(actor=self.actor, token_id=int(pk))))
