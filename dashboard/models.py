"""What the dashboard remembers per owner (the shell's own preferences, nothing of memory)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class MemoryView(models.TextChoices):
    CARDS = "cards"
    ROWS = "rows"  # one line per memory, for reviewing many at once


class DashboardPreference(models.Model):
    """One row per owner, created on the first change; no row means the defaults."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dashboard_preference"
    )
    memory_view = models.CharField(
        max_length=8, choices=MemoryView.choices, default=MemoryView.CARDS
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(memory_view__in=MemoryView.values),
                name="dashboard_memory_view_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.memory_view}"
