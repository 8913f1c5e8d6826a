"""Capture: conversations sent by agents' hooks, the inbox of candidate memories they
yield, and the receipts of memories injected back into prompts (DESIGN §3, §4).

The flow: a client posts a `CaptureBatch` of raw items from one source thread; a worker
parses them with the source's adapter into canonical `ConversationEvent`s (redacted before
they are stored), advances the `CaptureThread` checkpoint in the same transaction, and
extraction turns signals in user input and final replies into pending `Candidate`s that
the owner approves or rejects. `InjectionReceipt` records what was injected, never the
prompt itself.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from capture.markers import MAX_MARKER_CHARS
from memories.models import Kind, MemoryType, ScopeType, Visibility, choice_check


class Source(models.TextChoices):
    """The format a batch's items are in; each has one adapter in `capture.adapters`."""

    CLAUDE_CODE = "claude_code"  # Claude Code transcript JSONL lines
    CODEX = "codex"  # Codex CLI rollout JSONL lines
    MEMORYCENTER = "memorycenter"  # {"user_message": ..., "llm_message": ...} turns
    TEXT = "text"  # plain "User: ... / Assistant: ..." text
    GENERIC = "generic"  # canonical events from any other bridge


class Role(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    COMPACTION = "compaction"


class ItemType(models.TextChoices):
    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    REASONING = "reasoning"
    COMPACTION_SUMMARY = "compaction_summary"


class BatchStatus(models.TextChoices):
    QUEUED = "queued"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class CandidateStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    EXPIRED = "expired"


class CaptureThread(models.Model):
    """One conversation (session) of one source, and how far it has been ingested.

    The checkpoint is the last (run, sequence-in-run) stored; it moves only in the
    transaction that stores the events, so a retried batch resumes exactly after it.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="capture_threads"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    external_id = models.CharField(max_length=300)  # the source's session/thread id
    agent_name = models.CharField(max_length=100, blank=True)  # from the sending token
    workspace = models.CharField(max_length=500, blank=True)
    project_key = models.CharField(max_length=300, blank=True)
    checkpoint_run = models.CharField(max_length=200, blank=True)
    checkpoint_seq = models.IntegerField(default=-1)
    item_count = models.PositiveIntegerField(default=0)  # raw items received
    event_count = models.PositiveIntegerField(default=0)  # events stored
    duplicate_count = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    last_batch_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            choice_check("source", Source, "capture_thread_source_valid"),
            models.UniqueConstraint(
                fields=["owner", "source", "external_id"], name="capture_thread_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.external_id}"


class CaptureBatch(models.Model):
    """Raw items as a client sent them, held only until a worker has processed them.

    `items` is emptied in the transaction that stores the redacted events, so unredacted
    text lives no longer than a queued message would. `counts` and `redactions` are what
    the status endpoint reports.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="capture_batches"
    )
    thread = models.ForeignKey(CaptureThread, on_delete=models.CASCADE, related_name="batches")
    token = models.ForeignKey(
        "accounts.PersonalAccessToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    agent_name = models.CharField(max_length=100, blank=True)
    run_id = models.CharField(max_length=200, blank=True)  # the client's run; "" if none
    status = models.CharField(
        max_length=12, choices=BatchStatus.choices, default=BatchStatus.QUEUED
    )
    dry_run = models.BooleanField(default=False)
    items = models.JSONField(null=True, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    size_bytes = models.PositiveIntegerField(default=0)
    # {"events": n, "duplicates": n, "markers": n, "skipped": n, "candidates": n}
    counts = models.JSONField(default=dict, blank=True)
    redactions = models.JSONField(default=dict, blank=True)  # {rule: count}
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"], name="capture_batch_status_idx"),
            models.Index(fields=["owner", "-created_at"], name="capture_batch_owner_idx"),
        ]
        constraints = [choice_check("status", BatchStatus, "capture_batch_status_valid")]


class ConversationEvent(models.Model):
    """One canonical, redacted item of a conversation.

    fingerprint = sha256(source | thread | run | sequence within the run | role | text),
    unique per owner: a replayed or overlapping batch never stores an event twice, and a
    source that trims old messages does not change the fingerprints of those it keeps.
    Tool calls, tool results and reasoning are stored as markers (type only, no text).
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversation_events"
    )
    thread = models.ForeignKey(CaptureThread, on_delete=models.CASCADE, related_name="events")
    batch = models.ForeignKey(
        CaptureBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    fingerprint = models.CharField(max_length=64)
    run_id = models.CharField(max_length=200, blank=True)
    seq = models.IntegerField()
    role = models.CharField(max_length=12, choices=Role.choices)
    item_type = models.CharField(max_length=20, choices=ItemType.choices, default=ItemType.MESSAGE)
    is_marker = models.BooleanField(default=False)
    # For assistant messages: the final reply of its turn (only those feed extraction).
    is_final = models.BooleanField(default=False)
    text = models.TextField(blank=True)  # redacted; empty for markers
    original_sha256 = models.CharField(max_length=64, blank=True)  # of the text before redaction
    redactions = models.JSONField(default=dict, blank=True)  # {rule: count}
    occurred_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["thread_id", "run_id", "seq"]
        indexes = [
            models.Index(fields=["thread", "run_id", "seq"], name="capture_event_order_idx"),
            models.Index(fields=["created_at"], name="capture_event_age_idx"),
        ]
        constraints = [
            choice_check("role", Role, "capture_event_role_valid"),
            choice_check("item_type", ItemType, "capture_event_item_type_valid"),
            models.UniqueConstraint(fields=["owner", "fingerprint"], name="capture_event_unique"),
        ]


class Candidate(models.Model):
    """A memory proposed from captured conversation, waiting for the owner's decision.

    `fingerprint` is `memories.text.fingerprint` of the proposed content: one pending
    candidate per fingerprint (evidence from other agents and threads merges into it), and
    the fingerprint a rejection is remembered by. `replaces` names a live memory the
    candidate is close to; only the owner's approval may supersede it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="candidates"
    )
    status = models.CharField(
        max_length=10, choices=CandidateStatus.choices, default=CandidateStatus.PENDING
    )
    content = models.TextField()
    fingerprint = models.CharField(max_length=64)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    type = models.CharField(max_length=16, choices=MemoryType.choices, default=MemoryType.SEMANTIC)
    scope_type = models.CharField(max_length=8, choices=ScopeType.choices, default=ScopeType.GLOBAL)
    scope_key = models.CharField(max_length=300, blank=True, default="")
    tags = models.JSONField(default=list, blank=True)
    rule = models.CharField(max_length=64)  # the extraction rule (or extractor) that proposed it
    confidence = models.FloatField()
    # [{"event_id", "fingerprint", "thread_id", "agent", "sentence", "at"}], oldest first
    evidence = models.JSONField(default=list, blank=True)
    agents = models.JSONField(default=list, blank=True)  # agents whose conversations support it
    # What the poisoning screen found in the content ([{"rule", "excerpt"}]): the proposal
    # reads as an instruction to the agents that would later be shown it. The owner sees
    # the warning in the Inbox before approving.
    screen_findings = models.JSONField(default=list, blank=True)
    replaces = models.ForeignKey(
        "memories.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    memory = models.ForeignKey(  # the memory an approval created
        "memories.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_visibility = models.CharField(
        max_length=8, choices=Visibility.choices, blank=True, default=""
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            models.Index(fields=["owner", "status", "-updated_at"], name="candidate_inbox_idx"),
            models.Index(fields=["status", "created_at"], name="candidate_age_idx"),
        ]
        constraints = [
            choice_check("status", CandidateStatus, "candidate_status_valid"),
            choice_check("kind", Kind, "candidate_kind_valid"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="candidate_confidence_range",
            ),
            models.UniqueConstraint(
                fields=["owner", "fingerprint"],
                condition=Q(status="pending"),
                name="candidate_one_pending_per_fingerprint",
            ),
        ]

    def __str__(self) -> str:
        return self.content[:80]


class RejectedFingerprint(models.Model):
    """A fact the owner rejected: extraction never proposes the same fingerprint again."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rejected_fingerprints"
    )
    fingerprint = models.CharField(max_length=64)
    content = models.TextField(blank=True)  # shown on the owner's list, so it can be forgiven
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "fingerprint"], name="rejected_fingerprint_unique"
            )
        ]


class NeverRememberPattern(models.Model):
    """An owner's "never remember" rule: a case-insensitive phrase extraction honours."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="never_remember_patterns"
    )
    pattern = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pattern"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "pattern"], name="never_remember_unique")
        ]


class StripMarker(models.Model):
    """A fence the owner names: text between `start` and `end` in a captured turn was
    injected by some tool, so capture drops it (see capture/markers.py)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="strip_markers"
    )
    start = models.CharField(max_length=MAX_MARKER_CHARS)
    end = models.CharField(max_length=MAX_MARKER_CHARS)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["start", "end"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "start", "end"], name="strip_marker_unique")
        ]

    def __str__(self) -> str:
        return f"{self.start} … {self.end}"
