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
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
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


# --- maintenance (workers) --------------------------------------------------------------------


class MaintenanceLock(models.Model):
    """A lease on one periodic job, so it never runs twice at once (continuity.maintenance.locks).

    A row, not a cache key: Django's file cache (lite profile) implements `add` as
    check-then-set, which two workers can both win. A primary key insert and a conditional
    update are atomic on SQLite and PostgreSQL alike. `expires_at` frees the lease of a
    worker that died holding it.
    """

    name = models.CharField(max_length=100, primary_key=True)
    holder = models.CharField(max_length=64)
    acquired_at = models.DateTimeField()
    expires_at = models.DateTimeField()

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

    One row per retention rule (continuity.maintenance.retention.RULES), changed only
    through `retention_window_set`.
    """

    rule = models.CharField(max_length=100, primary_key=True)
    value = models.PositiveIntegerField()
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.rule} = {self.value}"


class ProposalKind(models.TextChoices):
    NEAR_DUPLICATE = "near_duplicate"
    STALE = "stale"


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"
    OBSOLETE = "obsolete"  # the memories changed so that the proposal no longer applies


class ReviewProposal(models.Model):
    """Something compaction found for the owner to decide in Review; it never acts alone.

    States: `pending` when found; `accepted` or `dismissed` by the owner; `obsolete` when
    compaction sees it no longer applies (a memory left the live set, or was verified).
    `key` identifies what the proposal is about (the kind and the sorted memory ids), so
    a rerun never proposes the same thing twice, and a dismissed proposal stays dismissed.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_proposals"
    )
    kind = models.CharField(max_length=16, choices=ProposalKind.choices)
    key = models.CharField(max_length=200)
    memory_ids = models.JSONField(default=list)
    score = models.FloatField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=10, choices=ProposalStatus.choices, default=ProposalStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "status", "-created_at"], name="proposal_owner_idx")]
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="proposal_unique_key"),
            models.CheckConstraint(condition=Q(kind__in=ProposalKind.values), name="proposal_kind_valid"),
            models.CheckConstraint(
                condition=Q(status__in=ProposalStatus.values), name="proposal_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.status}: {', '.join(self.memory_ids)}"
