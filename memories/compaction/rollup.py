"""Step 5: old episodes of a project rolled up into one summary memory per ISO week."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from foundation.messages import rendered
from memories.models import (
    MAX_CONTENT_CHARS,
    OWNER_TRUSTS,
    EventType,
    Memory,
    MemoryLink,
    MemoryType,
    Relation,
    Status,
    Trust,
)
from memories.services import reasons
from memories.services.common import record_event, save_new, supersede
from memories.text import fingerprint

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
        supersede(actor, previous, successor=summary, reason=reasons.LATE_EPISODES)
    else:
        save_new(summary)
    MemoryLink.objects.bulk_create(
        [MemoryLink(owner=owner, from_memory=summary, to_memory=memory, relation=Relation.DERIVED_FROM,
                    created_by_agent=ROLLUP_AGENT) for memory in sources],
        ignore_conflicts=True,
    )  # fmt: skip
    record_event(actor=actor, memory=summary, event_type=EventType.CREATED,
                 reason=rendered(reasons.WEEKLY_ROLLUP, count=len(sources)))  # fmt: skip
    for memory in originals:
        memory.status = Status.ARCHIVED
        memory.updated_at = timezone.now()
        memory.save(update_fields=["status", "updated_at"])
        record_event(actor=actor, memory=memory, event_type=EventType.ARCHIVED,
                     reason=rendered(reasons.ROLLED_UP, id=summary.pk))  # fmt: skip
    return len(originals)
