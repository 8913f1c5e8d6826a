"""Handoff capsules: the state of a task, left by one agent for the next (DESIGN §3).

A capsule is written once and never edited; the only changes are being resumed (who and
when) and being expired early by the owner. Resuming a task returns its newest capsule
that has not expired, and never a capsule of another task or another owner.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone

MAX_SUMMARY_CHARS = 4000


class TaskStatus(models.TextChoices):
    IN_PROGRESS = "in_progress"
    BLOCKED = "blocked"
    NEEDS_REVIEW = "needs_review"
    DONE = "done"


class HandoffCapsule(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="handoffs"
    )
    task_id = models.CharField(max_length=300)
    summary = models.TextField()
    status = models.CharField(
        max_length=16, choices=TaskStatus.choices, default=TaskStatus.IN_PROGRESS
    )
    decisions = models.JSONField(default=list, blank=True)
    next_steps = models.JSONField(default=list, blank=True)
    artifacts = models.JSONField(default=list, blank=True)
    blockers = models.JSONField(default=list, blank=True)

    # The agent identity comes from the token that wrote the capsule; empty for the owner.
    from_agent = models.CharField(max_length=100, blank=True)
    from_token = models.ForeignKey(
        "accounts.PersonalAccessToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    # The latest resume: which agent (empty: the owner) and when; resume_count counts them all.
    resumed_at = models.DateTimeField(null=True, blank=True)
    resumed_by = models.CharField(max_length=100, blank=True)
    resume_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # resume: the newest capsule of one task of one owner.
            models.Index(fields=["owner", "task_id", "-created_at"], name="handoff_task_idx"),
            models.Index(fields=["owner", "-created_at"], name="handoff_recent_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=TaskStatus.values), name="handoff_status_valid"
            ),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("summary"), MAX_SUMMARY_CHARS),
                name="handoff_summary_max_length",
            ),
            models.CheckConstraint(condition=~Q(task_id=""), name="handoff_task_id_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.task_id}: {self.summary[:60]}"

    @property
    def is_expired(self) -> bool:
        return self.expires_at <= timezone.now()

    @property
    def state(self) -> str:
        """expired, resumed or open (a resumed capsule stays resumable until it expires)."""
        if self.is_expired:
            return "expired"
        return "resumed" if self.resumed_at else "open"
