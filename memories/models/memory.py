"""Memories, their append-only history, and the links between them (DESIGN §3).

Rules that must hold for every row are database constraints; the services check the same
rules first so that callers get a friendly error instead of an IntegrityError.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone

from memories.models.choices import (
    LIVE_STATUSES,
    MAX_CONTENT_CHARS,
    OWNER_TRUSTS,
    SEARCH_FIELDS,
    SEARCH_SOURCE_FIELDS,
    ConfidenceBasis,
    EventType,
    Kind,
    MemoryType,
    Origin,
    Relation,
    ScopeType,
    Status,
    Trust,
    Visibility,
    choice_check,
)


class Memory(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories"
    )
    content = models.TextField()
    key = models.CharField(max_length=200, null=True, blank=True)
    value = models.JSONField(null=True, blank=True)

    type = models.CharField(max_length=16, choices=MemoryType.choices)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    scope_type = models.CharField(max_length=8, choices=ScopeType.choices, default=ScopeType.GLOBAL)
    scope_key = models.CharField(max_length=300, blank=True, default="")

    trust = models.CharField(max_length=10, choices=Trust.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.SHARED
    )

    origin = models.CharField(max_length=8, choices=Origin.choices)
    source_agent = models.CharField(max_length=100, blank=True)
    created_by_token = models.ForeignKey(
        "accounts.PersonalAccessToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="memories",
    )
    confidence = models.FloatField(null=True, blank=True)
    confidence_basis = models.CharField(
        max_length=16, choices=ConfidenceBasis.choices, blank=True, default=""
    )

    version = models.PositiveIntegerField(default=1)
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="superseded_by",
        db_index=False,  # mem_supersedes_idx, partial
    )
    fingerprint = models.CharField(max_length=64)

    tags = models.JSONField(default=list, blank=True)
    retrieval_hints = models.JSONField(default=list, blank=True)

    # Derived on every save from the fields above (memories.retrieval.analysis); the
    # full-text index is built from these, identically on SQLite and PostgreSQL.
    search_body = models.TextField(blank=True, default="", editable=False)
    search_aux = models.TextField(blank=True, default="", editable=False)
    search_scope = models.CharField(max_length=64, blank=True, default="", editable=False)

    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    # Held for the owner: text an agent wrote that was stored disputed (it read as
    # instructions to agents, or contradicted what the owner trusts). No agent reads it,
    # whatever status it moves to, until the owner releases it (confirm, lock, correct).
    held = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "memories"
        ordering = ["-updated_at"]
        indexes = [
            models.Index(
                fields=["owner", "status", "scope_type", "scope_key"], name="mem_scope_idx"
            ),
            models.Index(
                fields=["owner", "scope_type", "scope_key", "-updated_at"],
                name="mem_scope_recent_idx",
            ),
            models.Index(fields=["owner", "status", "-updated_at"], name="mem_recent_idx"),
            models.Index(fields=["owner", "kind", "status"], name="mem_kind_idx"),
            models.Index(fields=["owner", "trust", "status"], name="mem_trust_idx"),
            models.Index(fields=["owner", "source_agent"], name="mem_agent_idx"),
            models.Index(fields=["owner", "key"], name="mem_key_idx"),
            # The partial unique index cannot serve lookups whose status is a bound
            # parameter (SQLite cannot prove it matches the index condition).
            models.Index(fields=["owner", "fingerprint"], name="mem_fingerprint_idx"),
            # Most memories supersede nothing. A full index would be one NULL value shared by
            # nearly every row, which SQLite's statistics (after ANALYZE) read as "matches
            # everything" and then scan the table for a successor lookup.
            models.Index(
                fields=["supersedes"],
                condition=Q(supersedes__isnull=False),
                name="mem_supersedes_idx",
            ),
        ]
        constraints = [
            choice_check("type", MemoryType, "memory_type_valid"),
            choice_check("kind", Kind, "memory_kind_valid"),
            choice_check("scope_type", ScopeType, "memory_scope_type_valid"),
            choice_check("trust", Trust, "memory_trust_valid"),
            choice_check("status", Status, "memory_status_valid"),
            choice_check("visibility", Visibility, "memory_visibility_valid"),
            choice_check("origin", Origin, "memory_origin_valid"),
            models.CheckConstraint(
                condition=Q(confidence_basis="") | Q(confidence_basis__in=ConfidenceBasis.values),
                name="memory_confidence_basis_valid",
            ),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True)
                | (Q(confidence__gte=0) & Q(confidence__lte=1) & ~Q(confidence_basis="")),
                name="memory_confidence_needs_basis",
            ),
            models.CheckConstraint(
                condition=(Q(scope_type=ScopeType.GLOBAL) & Q(scope_key=""))
                | (~Q(scope_type=ScopeType.GLOBAL) & ~Q(scope_key="")),
                name="memory_scope_key_matches_type",
            ),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("content"), MAX_CONTENT_CHARS),
                name="memory_content_max_length",
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="memory_version_positive"),
            # Per visibility: an agent that cannot read a private memory writes as if its key
            # and its statement were free, and gets a memory of its own beside it (the owner
            # sees both in Review). Disputed and held memories take part once the owner
            # releases them (memories.services.lifecycle checks for a twin first).
            models.UniqueConstraint(
                fields=["owner", "scope_type", "scope_key", "key", "visibility"],
                condition=Q(key__isnull=False, status=Status.ACTIVE, held=False),
                name="memory_one_active_per_key_visibility",
            ),
            models.UniqueConstraint(
                fields=["owner", "fingerprint", "visibility"],
                condition=Q(status=Status.ACTIVE, held=False),
                name="memory_one_active_per_fingerprint_visibility",
            ),
        ]

    def __str__(self) -> str:
        return self.content[:80]

    def save(self, *args, **kwargs):
        """Saves the row and its derived search columns, nothing else: the work a new text
        sets in motion (dictionary, embedding) is the writer's, through
        memories.services.follow_up."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None:
            self.refresh_search_fields()
        elif SEARCH_SOURCE_FIELDS.intersection(update_fields):
            self.refresh_search_fields()
            kwargs["update_fields"] = {*update_fields, *SEARCH_FIELDS}
        super().save(*args, **kwargs)

    def refresh_search_fields(self) -> None:
        """Recompute the derived search columns; bulk writers call this before bulk_create."""
        from memories.retrieval.analysis import document_fields

        for name, value in document_fields(self).items():
            setattr(self, name, value)

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES

    @property
    def shown_state(self) -> str:
        """What a card chose its buttons from (version, status, trust), as its forms send it
        back: `memory_act` refuses an action on a state that has moved since."""
        return f"{self.version}.{self.status}.{self.trust}"

    @property
    def is_owner_trusted(self) -> bool:
        """Confirmed or locked by the owner: no agent may overwrite or forget it."""
        return self.trust in OWNER_TRUSTS


class MemoryEvent(models.Model):
    """Append-only history of one memory.

    The memory reference has no database constraint on purpose: when the owner deletes a
    memory, its events are scrubbed of content and a tombstone remains, pointing at an id
    that no longer exists.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    memory = models.ForeignKey(
        Memory, on_delete=models.DO_NOTHING, db_constraint=False, related_name="events"
    )
    event_type = models.CharField(max_length=12, choices=EventType.choices)
    version = models.PositiveIntegerField()
    actor_token = models.ForeignKey(
        "accounts.PersonalAccessToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # The acting agent's name, or empty when the owner acted; kept after a token is deleted.
    actor_agent = models.CharField(max_length=100, blank=True)
    patch = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    reason = models.CharField(max_length=500, blank=True)
    idempotency_key = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["memory", "-id"], name="event_memory_idx"),
            models.Index(fields=["owner", "-created_at"], name="event_owner_recent_idx"),
            models.Index(fields=["owner", "event_type", "-created_at"], name="event_type_idx"),
        ]
        constraints = [choice_check("event_type", EventType, "event_type_valid")]

    def __str__(self) -> str:
        return f"{self.event_type} v{self.version} of {self.memory_id}"

    @property
    def actor_label(self) -> str:
        return f"agent:{self.actor_agent}" if self.actor_agent else "owner"


class MemoryLink(models.Model):
    """A typed edge from a memory to another memory or to a resource URI."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    from_memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="links_out")
    to_memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.CASCADE, related_name="links_in"
    )
    uri = models.CharField(max_length=2000, blank=True, default="")
    relation = models.CharField(max_length=16, choices=Relation.choices)
    created_by_agent = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            choice_check("relation", Relation, "link_relation_valid"),
            models.CheckConstraint(
                condition=(Q(to_memory__isnull=False) & Q(uri=""))
                | (Q(to_memory__isnull=True) & ~Q(uri="")),
                name="link_memory_xor_uri",
            ),
            models.CheckConstraint(
                condition=~Q(from_memory=models.F("to_memory")), name="link_not_to_itself"
            ),
            models.UniqueConstraint(
                fields=["from_memory", "to_memory", "relation"],
                condition=Q(to_memory__isnull=False),
                name="link_unique_memory_edge",
            ),
            models.UniqueConstraint(
                fields=["from_memory", "uri", "relation"],
                condition=Q(to_memory__isnull=True),
                name="link_unique_uri_edge",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_memory_id} {self.relation} {self.to_memory_id or self.uri}"


class IdempotencyRecord(models.Model):
    """The receipt of a write made with an idempotency key; a replay returns it unchanged.

    Keys are per caller (`namespace`: a token or the owner), and a key reused for a
    different request is refused rather than silently answered with the old receipt.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    namespace = models.CharField(max_length=64)
    key = models.CharField(max_length=200)
    operation = models.CharField(max_length=32)
    request_hash = models.CharField(max_length=64)
    receipt = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "namespace", "key"], name="idempotency_unique_key"
            )
        ]


# Stored vectors live with the embedding code; imported here so Django registers the model.
from memories.embeddings.models import MemoryVector  # noqa: E402,F401
