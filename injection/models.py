"""Receipts of what was injected into agents' prompts: never the prompt, only its hash prefix."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class InjectionReceipt(models.Model):
    """What one injection put into a prompt: never the prompt, only a short hash of it."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="injection_receipts"
    )
    token = models.ForeignKey(
        "accounts.PersonalAccessToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    agent_name = models.CharField(max_length=100, blank=True)
    project_key = models.CharField(max_length=300, blank=True)
    prompt_sha256 = models.CharField(max_length=12)  # a prefix only
    memory_ids = models.JSONField(default=list, blank=True)
    token_estimate = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)
    reason = models.CharField(max_length=64, blank=True)  # why nothing was injected, if so
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "capture_injectionreceipt"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="injection_owner_idx"),
            models.Index(fields=["created_at"], name="injection_age_idx"),
        ]


class InjectedMemory(models.Model):
    """One memory of one receipt, so a memory card can say how often it was injected."""

    receipt = models.ForeignKey(InjectionReceipt, on_delete=models.CASCADE, related_name="items")
    memory = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "capture_injectedmemory"
        indexes = [models.Index(fields=["memory", "-created_at"], name="injected_memory_idx")]
