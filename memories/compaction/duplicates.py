"""Step 1: equal live statements merged into the most trusted one; stale fingerprints refreshed."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from foundation.messages import rendered
from memories.compaction.common import propose
from memories.models import (
    LIVE_STATUSES,
    TRUST_RANK,
    EventType,
    Memory,
    MemoryLink,
    ProposalKind,
    Relation,
)
from memories.services import reasons
from memories.services.common import record_event, supersede
from memories.services.follow_up import memories_follow_up
from memories.text import fingerprint


def merge_exact_duplicates(*, deadline: Deadline) -> dict:
    groups: dict[tuple, list] = defaultdict(list)
    stale: list = []
    rows = (
        Memory.objects.filter(status__in=LIVE_STATUSES)
        .order_by("pk")
        .values_list("pk", "owner_id", "content", "scope_type", "scope_key", "fingerprint")
    )
    for pk, owner_id, content, scope_type, scope_key, stored in rows.iterator(chunk_size=2000):
        fresh = fingerprint(content, scope_type, scope_key)
        groups[(owner_id, fresh)].append(pk)
        if fresh != stored:
            stale.append(pk)
    merged = refreshed = skipped = 0
    stale_set = set(stale)
    for (owner_id, fresh), pks in groups.items():
        if deadline.passed:
            break
        if len(pks) > 1:
            outcome = _merge_group(owner_id, fresh, pks)
            merged += outcome if outcome > 0 else 0
            skipped += outcome < 0
        elif pks[0] in stale_set:
            refreshed += Memory.objects.filter(pk=pks[0], status__in=LIVE_STATUSES).update(
                fingerprint=fresh
            )
    return {
        "merged": merged,
        "fingerprints_refreshed": refreshed,
        "groups_left_for_review": skipped,
    }


def _survivor_order(memory: Memory):
    # Most trusted, then the most recently verified, then the oldest (the original).
    verified = memory.verified_at.timestamp() if memory.verified_at else 0.0
    return (-TRUST_RANK[memory.trust], -verified, memory.created_at, str(memory.pk))


@transaction.atomic
def _merge_group(owner_id, fresh: str, pks: list) -> int:
    """Merge one group of equal live statements; returns how many rows were merged away,
    or -1 when the rows hold different keys (then it is proposed for Review instead)."""
    memories = list(
        Memory.objects.select_for_update()
        .filter(pk__in=pks, status__in=LIVE_STATUSES)
        .select_related("owner")
    )
    memories = [m for m in memories if fingerprint(m.content, m.scope_type, m.scope_key) == fresh]
    if len(memories) < 2:
        return 0
    keys = {m.key for m in memories if m.key is not None}
    if len(keys) > 1:
        propose(owner_id, ProposalKind.NEAR_DUPLICATE, [m.pk for m in memories], 1.0,
                {"reason": "equal statements holding different keys"})  # fmt: skip
        return -1
    memories.sort(key=_survivor_order)
    survivor, duplicates = memories[0], memories[1:]
    actor = Actor.owner(survivor.owner)
    for duplicate in duplicates:
        supersede(
            actor,
            duplicate,
            successor=survivor,
            reason=rendered(reasons.EXACT_DUPLICATE_OF, id=survivor.pk),
        )
        MemoryLink.objects.get_or_create(
            owner=survivor.owner, from_memory=duplicate, to_memory=survivor,
            relation=Relation.DUPLICATES, defaults={"created_by_agent": ""},
        )  # fmt: skip
    fields = ["fingerprint"]
    survivor.fingerprint = fresh
    if survivor.key is None and keys:  # the key moves to the survivor: it stays answered
        survivor.key = keys.pop()
        fields.append("key")
    survivor.save(update_fields=fields)
    if "key" in fields:
        memories_follow_up([survivor])
    record_event(
        actor=actor, memory=survivor, event_type=EventType.MERGED,
        patch={"merged": [str(d.pk) for d in duplicates]}, reason=reasons.EXACT_DUPLICATE,
    )  # fmt: skip
    return len(duplicates)
