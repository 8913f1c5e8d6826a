"""Steps 3 and 4: memories nobody checked for long proposed as stale; pending proposals
whose memories changed retired as obsolete."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce

from memories.compaction.common import propose
from memories.models import (
    LIVE_STATUSES,
    Memory,
    ProposalKind,
    ProposalStatus,
    ReviewProposal,
    Trust,
    proposal_key,
)

MAX_STALE_PER_RUN = 1000


def propose_stale(*, now: datetime) -> dict:
    days = settings.CONTINUITY_STALE_AFTER_DAYS
    cutoff = now - timedelta(days=days)
    flagged = ReviewProposal.objects.filter(kind=ProposalKind.STALE).values("key")
    rows = (
        Memory.objects.filter(status__in=LIVE_STATUSES)
        .exclude(trust=Trust.LOCKED)
        .annotate(checked_at=Coalesce("verified_at", "created_at"))
        .filter(checked_at__lt=cutoff)
        .order_by("checked_at")
        .values_list("pk", "owner_id", "checked_at")
    )
    already = set(flagged.values_list("key", flat=True))
    created = 0
    for pk, owner_id, checked_at in rows.iterator(chunk_size=1000):
        key = proposal_key(ProposalKind.STALE, [pk])
        if key in already:
            continue
        created += propose(owner_id, ProposalKind.STALE, [pk], None,
                           {"last_checked": checked_at.isoformat(), "after_days": days})  # fmt: skip
        if created >= MAX_STALE_PER_RUN:
            break
    return {"proposed": created, "after_days": days}


# --- 4. proposals that no longer apply ------------------------------------------------------


def retire_obsolete_proposals(*, now: datetime) -> int:
    cutoff = now - timedelta(days=settings.CONTINUITY_STALE_AFTER_DAYS)
    obsolete = []
    pending = ReviewProposal.objects.filter(status=ProposalStatus.PENDING).values_list(
        "pk", "kind", "memory_ids"
    )
    for pk, kind, memory_ids in pending.iterator(chunk_size=1000):
        live = Memory.objects.filter(pk__in=memory_ids, status__in=LIVE_STATUSES)
        if kind == ProposalKind.STALE:
            live = live.filter(Q(verified_at__isnull=True) | Q(verified_at__lt=cutoff))
        if live.count() < len(memory_ids):
            obsolete.append(pk)
    return ReviewProposal.objects.filter(pk__in=obsolete).update(
        status=ProposalStatus.OBSOLETE, updated_at=now
    )
