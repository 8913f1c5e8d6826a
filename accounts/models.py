"""Accounts: the personal access tokens agents authenticate with."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Scope(models.TextChoices):
    MEMORIES_READ = "memories:read", "Read memories"
    MEMORIES_WRITE = "memories:write", "Write memories"
    CAPTURE_WRITE = "capture:write", "Send captured conversations"
    HANDOFF = "handoff", "Create and resume handoffs"
    PRIVATE_READ = "private:read", "Read private memories"


class PersonalAccessToken(models.Model):
    """An agent's credential: `cont_pat_<prefix><rest>`, kept only as a SHA-256 hash.

    The prefix (the first characters after `cont_pat_`) is stored in clear so that a lookup
    finds the one row to compare in constant time. The bound agent name is the identity
    every write made with this token carries.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(max_length=100)
    purpose = models.CharField(max_length=300, blank=True)
    agent_name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    # Empty: every project. Otherwise the only project keys this token may touch.
    allowed_projects = models.JSONField(default=list, blank=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # The last call refused for a reason only the owner can fix (accounts/refusals.py):
    # {"code", "message", "where"}.
    last_refusal_at = models.DateTimeField(null=True, blank=True)
    last_refusal = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "continuity_personalaccesstoken"
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "-created_at"])]
        constraints = [
            models.CheckConstraint(condition=~Q(agent_name=""), name="token_agent_name_required"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.agent_name})"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def is_expired(self) -> bool:
        return self.expires_at <= timezone.now()

    @property
    def is_usable(self) -> bool:
        return not self.is_revoked and not self.is_expired


class ThrottleCounter(models.Model):
    """One open window of an atomic counter (accounts.counters) on the lite profile: sign-in
    attempts per account and address, requests per token. A row whose window ended is reset
    by the next hit, and removed by retention."""

    key = models.CharField(max_length=200, primary_key=True)
    count = models.PositiveIntegerField()
    window_ends_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}: {self.count} until {self.window_ends_at:%H:%M:%S}"
