"""What compaction proposes to the owner in Review."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ProposalKind(models.TextChoices):
    NEAR_DUPLICATE = "near_duplicate"
    STALE = "stale"
    # Two memories that cannot both be true (a contradiction, or a replacement the judge
    # is not sure of): the owner keeps one, takes the other, or says both are true.
    CONFLICT = "conflict"


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"
    OBSOLETE = "obsolete"  # the memories changed so that the proposal no longer applies


class ProposalManager(models.Manager):
    def propose(self, owner_id, kind: str, memory_ids, score: float | None, detail: dict):
        """Record a proposal once, by its key: (proposal, created). A rerun, a second writer
        or a dismissed proposal is left as it is."""
        ids = sorted(str(pk) for pk in memory_ids)
        return self.get_or_create(
            owner_id=owner_id, key=proposal_key(kind, ids),
            defaults={"kind": kind, "memory_ids": ids, "score": score, "detail": detail},
        )  # fmt: skip


def proposal_key(kind: str, memory_ids) -> str:
    """What a proposal is about: its kind and its memories' ids, sorted."""
    return f"{kind}:{':'.join(sorted(str(pk) for pk in memory_ids))}"[:200]


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

    objects = ProposalManager()

    class Meta:
        # Kept from when this model lived in the project package (0.1.0).
        db_table = "continuity_reviewproposal"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["owner", "status", "-created_at"], name="proposal_owner_idx")
        ]
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="proposal_unique_key"),
            models.CheckConstraint(
                condition=Q(kind__in=ProposalKind.values), name="proposal_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=ProposalStatus.values), name="proposal_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.status}: {', '.join(self.memory_ids)}"
