"""Maintenance records shared by every app: job leases, runs, and retention windows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class MaintenanceLock(models.Model):
    """A lease on one periodic job, so it never runs twice at once (foundation.maintenance.locks).

    A row, not a cache key: Django's file cache (lite profile) implements `add` as
    check-then-set, which two workers can both win. A primary key insert and a conditional
    update are atomic on SQLite and PostgreSQL alike. `expires_at` frees the lease of a
    worker that died holding it.
    """

    name = models.CharField(max_length=100, primary_key=True)
    holder = models.CharField(max_length=64)
    acquired_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "continuity_maintenancelock"

    def __str__(self) -> str:
        return f"{self.name} held by {self.holder} until {self.expires_at:%Y-%m-%d %H:%M:%S}"


class MaintenanceRunStatus(models.TextChoices):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


class MaintenanceRun(models.Model):
    """One execution of a periodic job and what it did.

    States: a run starts `running`; it ends `succeeded` (with `result`: what it removed or
    produced) or `failed` (with `error`); a run left `running` by a killed worker is
    closed as `failed` by the next run of the same job. A run that found the job's lease
    taken, or the job done recently by another worker, is recorded directly as `skipped`.
    """

    task = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=MaintenanceRunStatus.choices)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "continuity_maintenancerun"
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["task", "status", "-started_at"], name="run_task_status_idx"),
            models.Index(fields=["started_at"], name="run_started_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=MaintenanceRunStatus.values), name="run_status_valid"
            )
        ]

    def __str__(self) -> str:
        return f"{self.task} {self.status} at {self.started_at:%Y-%m-%d %H:%M:%S}"

    @property
    def duration_seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return round((self.finished_at - self.started_at).total_seconds(), 3)


class RetentionOverride(models.Model):
    """The owner's choice of a retention window, overriding the environment's default.

    One row per retention rule (foundation.maintenance.retention.RULES), changed only
    through `retention_window_set`.
    """

    rule = models.CharField(max_length=100, primary_key=True)
    value = models.PositiveIntegerField()
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "continuity_retentionoverride"

    def __str__(self) -> str:
        return f"{self.rule} = {self.value}"
