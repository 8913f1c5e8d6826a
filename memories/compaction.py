"""Compaction: keep the store tidy without ever deciding for the owner.

What a run does, each step idempotent and bounded:

1. Exact duplicates. The fingerprint constraint keeps two live memories of one owner from
   saying the same thing *as fingerprinted when written*. When normalization improves
   (a new rule in memories.text.normalize), older rows keep their old fingerprints, so
   live statements that are now equal can coexist, and later writes no longer find them
   as duplicates. Compaction recomputes every live fingerprint: rows whose statement is
   now equal in the same scope are merged (the most trusted one survives, the others are
   superseded by it and linked `duplicates`; nothing is deleted); a lone stale fingerprint
   is simply refreshed. Owner-trusted rows are only ever merged into a row at least as trusted.
2. Near-duplicates (memories.text.assess, same owner and scope) become `near_duplicate`
   proposals for Review. Never merged automatically.
3. Live memories not verified (or created) for CONTINUITY_STALE_AFTER_DAYS become `stale`
   proposals. Locked memories are the owner's deliberate statements and are not flagged.
4. Pending proposals that no longer apply become `obsolete`.
5. Weekly rollup: active episodic memories of a project older than
   CONTINUITY_ROLLUP_AFTER_DAYS become one summary memory per project, ISO week and
   visibility (their statements as key facts, linked `derived_from`); the originals are
   archived, never deleted. Owner-trusted memories are left alone. Memories arriving
   late for a week already rolled up produce a new version of that week's summary.
6. The full-text index: SQLite FTS5 'optimize' (merges segments, drops deleted terms);
   PostgreSQL: the GIN indexes' pending lists merged into their trees, and ANALYZE, which
   refreshes the planner statistics recall reads term frequencies from.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from itertools import combinations

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from memories.models import (
    LIVE_STATUSES,
    MAX_CONTENT_CHARS,
    OWNER_TRUSTS,
    TRUST_RANK,
    EventType,
    Memory,
    MemoryLink,
    MemoryType,
    ProposalKind,
    ProposalStatus,
    Relation,
    ReviewProposal,
    Status,
    Trust,
)  # fmt: skip
from memories.retrieval import index as search_index
from memories.services.common import record_event, save_new, supersede
from memories.services.follow_up import memories_follow_up
from memories.text import analyze, assess, fingerprint

# Near-duplicate search per scope: the most recently updated memories only, and terms held
# by more memories than this are not used to find candidate pairs (a near-duplicate shares
# most of its terms, so it also shares a rarer one). Keeps a run far from O(n²).
MAX_MEMORIES_PER_SCOPE = 2000
COMMON_TERM_LIMIT = 200
MAX_STALE_PER_RUN = 1000


def compaction(*, deadline: Deadline, now: datetime | None = None) -> dict:
    now = now or timezone.now()
    report = {"exact_duplicates": merge_exact_duplicates(deadline=deadline)}
    report["near_duplicates"] = propose_near_duplicates(deadline=deadline)
    report["stale"] = propose_stale(now=now)
    report["obsolete"] = retire_obsolete_proposals(now=now)
    report["rollup"] = roll_up_episodes(now=now, deadline=deadline)
    report["index"] = optimize_index()
    report["complete"] = not deadline.passed
    return report


# --- 1. exact duplicates --------------------------------------------------------------------


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
        _propose(owner_id, ProposalKind.NEAR_DUPLICATE, [m.pk for m in memories], 1.0,
                 {"reason": "equal statements holding different keys"})  # fmt: skip
        return -1
    memories.sort(key=_survivor_order)
    survivor, duplicates = memories[0], memories[1:]
    actor = Actor.owner(survivor.owner)
    reason = "compaction: exact duplicate"
    for duplicate in duplicates:
        supersede(actor, duplicate, successor=survivor, reason=f"{reason} of {survivor.pk}")
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
        patch={"merged": [str(d.pk) for d in duplicates]}, reason=reason,
    )  # fmt: skip
    return len(duplicates)


# --- 2. near-duplicates ---------------------------------------------------------------------


def _propose(owner_id, kind: str, memory_ids, score: float | None, detail: dict) -> bool:
    """Record a proposal once; a rerun (or a dismissed proposal) is left as it is."""
    ids = sorted(str(pk) for pk in memory_ids)
    _, created = ReviewProposal.objects.get_or_create(
        owner_id=owner_id,
        key=f"{kind}:{':'.join(ids)}"[:200],
        defaults={"kind": kind, "memory_ids": ids, "score": score, "detail": detail},
    )
    return created


def candidate_pairs(texts: dict) -> set[tuple]:
    """Pairs of ids that share at least one not-too-common term."""
    holders: dict[str, list] = defaultdict(list)
    for pk, text in texts.items():
        for term in analyze(text).terms:
            holders[term].append(pk)
    pairs = set()
    for ids in holders.values():
        if 1 < len(ids) <= COMMON_TERM_LIMIT:
            pairs.update(combinations(sorted(ids, key=str), 2))
    return pairs


def propose_near_duplicates(*, deadline: Deadline) -> dict:
    scopes = (
        Memory.objects.filter(status__in=LIVE_STATUSES)
        .values_list("owner_id", "scope_type", "scope_key")
        .distinct()
        .order_by()
    )
    compared = proposed = 0
    for owner_id, scope_type, scope_key in list(scopes):
        if deadline.passed:
            break
        texts = dict(
            Memory.objects.filter(
                owner_id=owner_id,
                scope_type=scope_type,
                scope_key=scope_key,
                status__in=LIVE_STATUSES,
            )
            .order_by("-updated_at")
            .values_list("pk", "content")[:MAX_MEMORIES_PER_SCOPE]
        )
        for first, second in sorted(
            candidate_pairs(texts), key=lambda pair: (str(pair[0]), str(pair[1]))
        ):
            compared += 1
            verdict = assess(texts[first], texts[second])
            if verdict.near_duplicate and verdict.contradiction is None:
                proposed += _propose(owner_id, ProposalKind.NEAR_DUPLICATE, [first, second],
                                     verdict.similarity, {"scope": [scope_type, scope_key]})  # fmt: skip
    return {"pairs_compared": compared, "proposed": proposed}


# --- 3. stale -------------------------------------------------------------------------------


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
        key = f"{ProposalKind.STALE}:{pk}"
        if key in already:
            continue
        created += _propose(owner_id, ProposalKind.STALE, [pk], None,
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


# --- 5. weekly rollup of old episodes -------------------------------------------------------

ROLLUP_AGENT = "continuity-compaction"
ROLLUP_FACT_CHARS = 300


def _week(moment: datetime) -> str:
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def _summary_text(project: str, week: str, facts: list[str]) -> str:
    head = f"Week {week} in {project}: {len(facts)} episodes."
    lines, used = [head], len(head)
    for index, fact in enumerate(facts):
        line = "- " + (
            fact if len(fact) <= ROLLUP_FACT_CHARS else fact[: ROLLUP_FACT_CHARS - 1] + "…"
        )
        rest = len(facts) - index - 1
        if used + len(line) + 1 + len(f"\n(+{rest} more)") > MAX_CONTENT_CHARS:
            lines.append(f"(+{len(facts) - index} more)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def roll_up_episodes(*, now: datetime, deadline: Deadline) -> dict:
    cutoff = now - timedelta(days=settings.CONTINUITY_ROLLUP_AFTER_DAYS)
    rows = (
        Memory.objects.filter(type=MemoryType.EPISODIC, status=Status.ACTIVE, scope_type="project",
                              created_at__lt=cutoff)
        .exclude(trust__in=OWNER_TRUSTS)
        .exclude(source_agent=ROLLUP_AGENT)
        .exclude(held=True)  # held text is the owner's to release, never rolled into a summary
        .order_by("created_at", "pk")
        .values_list("pk", "owner_id", "scope_key", "visibility", "created_at")
    )  # fmt: skip
    groups: dict[tuple, list] = defaultdict(list)
    for pk, owner_id, scope_key, visibility, created_at in rows.iterator(chunk_size=2000):
        groups[(owner_id, scope_key, _week(created_at), visibility)].append(pk)
    summaries = archived = 0
    for (owner_id, scope_key, week, visibility), pks in groups.items():
        if deadline.passed:
            break
        rolled = _roll_up_week(owner_id, scope_key, week, visibility, pks)
        summaries += rolled > 0
        archived += rolled
    return {
        "summaries": summaries,
        "archived": archived,
        "after_days": settings.CONTINUITY_ROLLUP_AFTER_DAYS,
    }


@transaction.atomic
def _roll_up_week(owner_id, scope_key: str, week: str, visibility: str, pks: list) -> int:
    originals = list(
        Memory.objects.select_for_update().filter(pk__in=pks, status=Status.ACTIVE, held=False)
        .exclude(trust__in=OWNER_TRUSTS).select_related("owner").order_by("created_at", "pk")
    )  # fmt: skip
    if not originals:
        return 0
    key = f"weekly-rollup:{week}" + (":private" if visibility == "private" else "")
    previous = (
        Memory.objects.select_for_update()
        .filter(
            owner_id=owner_id,
            scope_type="project",
            scope_key=scope_key,
            key=key,
            status=Status.ACTIVE,
        )
        .first()
    )
    earlier = []
    if previous is not None:  # late arrivals: the week's summary gets a new version
        earlier = list(
            Memory.objects.filter(
                links_in__from_memory=previous, links_in__relation=Relation.DERIVED_FROM
            ).order_by("created_at", "pk")
        )
    sources = earlier + originals
    owner = originals[0].owner
    actor = Actor.owner(owner)
    content = _summary_text(scope_key, week, [memory.content for memory in sources])
    summary = Memory(
        owner=owner, content=content, key=key, type=MemoryType.EPISODIC, kind="event",
        scope_type="project", scope_key=scope_key, trust=Trust.OBSERVED, visibility=visibility,
        origin="agent", source_agent=ROLLUP_AGENT, version=previous.version + 1 if previous else 1,
        supersedes=previous, fingerprint=fingerprint(content, "project", scope_key),
        tags=["weekly-rollup"],
    )  # fmt: skip
    if previous is not None:
        supersede(
            actor, previous, successor=summary, reason="compaction: late episodes for this week"
        )
    else:
        save_new(summary)
    MemoryLink.objects.bulk_create(
        [MemoryLink(owner=owner, from_memory=summary, to_memory=memory, relation=Relation.DERIVED_FROM,
                    created_by_agent=ROLLUP_AGENT) for memory in sources],
        ignore_conflicts=True,
    )  # fmt: skip
    record_event(actor=actor, memory=summary, event_type=EventType.CREATED,
                 reason=f"compaction: weekly rollup of {len(sources)} episodes")  # fmt: skip
    for memory in originals:
        memory.status = Status.ARCHIVED
        memory.updated_at = timezone.now()
        memory.save(update_fields=["status", "updated_at"])
        record_event(actor=actor, memory=memory, event_type=EventType.ARCHIVED,
                     reason=f"compaction: rolled up into {summary.pk}")  # fmt: skip
    return len(originals)


# --- 6. the full-text index -----------------------------------------------------------------


def optimize_index() -> dict:
    search_index.compact()
    if connection.vendor == "sqlite":
        return {"vendor": "sqlite", "action": "fts5 optimize"}
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
    return {"vendor": connection.vendor, "action": "gin pending lists merged, analyze"}
