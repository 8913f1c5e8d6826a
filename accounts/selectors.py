"""Reads of access tokens."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import PersonalAccessToken


def usable_tokens(user) -> QuerySet[PersonalAccessToken]:
    return PersonalAccessToken.objects.filter(
        owner=user, revoked_at__isnull=True, expires_at__gt=timezone.now()
    )
