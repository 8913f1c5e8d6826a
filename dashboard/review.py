"""Review's reads: what the owner is asked to decide, section by section, each paged by
keyset (`?section=<name>&cursor=`).

- conflicts: pairs the relation judge raised (`ProposalKind.CONFLICT`), the memory that
  stands beside the new write, the differing words marked;
- quarantined: agents' writes held because they read as instructions to agents, with the
  rules that caught them and the text they caught;
- disputed: the other disputed memories (an agent writing a key the owner holds) beside
  the memory each contradicts;
- proposals: compaction's near-duplicates and stale memories;
- inferred: agents' inferences to confirm.

A memory is shown in one of the first three only: a conflict or a quarantine says more
about a disputed memory than the bare dispute does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, QuerySet
from django.utils.safestring import SafeString

from dashboard.diff import word_diff
from dashboard.selectors import with_links
from foundation.paging import Page, keyset_page, query_key
from memories import poisoning
from memories.models import (
    EventType,
    Memory,
    MemoryEvent,
    ProposalKind,
    ProposalStatus,
    ReviewProposal,
)
from memories.poisoning import normalize
from memories.selectors import contradicted_by, disputed_memories, inferred_memories

SECTIONS = ("conflicts", "quarantined", "disputed", "proposals", "inferred")
# Review is a work queue with up to three cards per item: shorter pages keep it quick.
PAGE_SIZES = {"conflicts": 10, "quarantined": 10, "disputed": 10, "proposals": 10, "inferred": 15}
QUARANTINED = "quarantined:"
RULES_IN_REASON = re.compile(r"\(([^)]*)\)\s*$")


@dataclass
class Conflict:
    """A conflict proposal as its card shows it; `old` or `new` is None once deleted."""

    proposal: ReviewProposal
    old: Memory | None
    new: Memory | None
    old_html: SafeString | str = ""
    new_html: SafeString | str = ""

    @property
    def memories(self) -> list[Memory]:
        return [m for m in (self.old, self.new) if m is not None]


@dataclass
class Quarantined:
    memory: Memory
    findings: list[dict]


@dataclass
class ReviewQueue:
    section: str
    conflicts: Page
    quarantined: Page
    disputed: Page
    proposals: Page
    inferred: Page
    pairs: list[tuple[Memory, Memory | None]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)


def pending_conflicts(user) -> QuerySet[ReviewProposal]:
    return ReviewProposal.objects.filter(
        owner=user, status=ProposalStatus.PENDING, kind=ProposalKind.CONFLICT
    )


def pending_compaction(user) -> QuerySet[ReviewProposal]:
    """Compaction's open proposals (near-duplicates and stale memories)."""
    return ReviewProposal.objects.filter(owner=user, status=ProposalStatus.PENDING).exclude(
        kind=ProposalKind.CONFLICT
    )


def open_proposals_count(user) -> int:
    """Every open proposal, conflicts and compaction's: one count over the owner-status
    index. Answering a proposal may write no memory event, so this is never cached."""
    return ReviewProposal.objects.filter(owner=user, status=ProposalStatus.PENDING).count()


def quarantine_events(user) -> QuerySet[MemoryEvent]:
    return MemoryEvent.objects.filter(
        owner=user, event_type=EventType.CREATED, reason__startswith=QUARANTINED
    )


def quarantined_memories(user) -> QuerySet[Memory]:
    """Disputed memories still held since they were quarantined as instructions to agents.
    Each held memory's own creation is looked up (a few per store), never every memory's."""
    created_quarantined = quarantine_events(user).filter(memory=OuterRef("pk"))
    return disputed_memories(user).filter(held=True).filter(Exists(created_quarantined))


def conflict_memory_ids(user) -> set[str]:
    """Every memory a pending conflict is about (as strings, like `memory_ids`)."""
    return {
        pk for ids in pending_conflicts(user).values_list("memory_ids", flat=True) for pk in ids
    }


def bare_disputes(user) -> QuerySet[Memory]:
    """Disputed memories that are neither quarantined nor part of a pending conflict."""
    return (
        disputed_memories(user)
        .exclude(pk__in=quarantined_memories(user).values("pk"))
        .exclude(pk__in=list(conflict_memory_ids(user)))
    )


def review_memory_count(user) -> int:
    """The memories part of the Review tab's number: disputed memories (those of a pending
    conflict are counted by their proposal) and inferences to confirm. The whole number
    adds `open_proposals_count`."""
    return (
        disputed_memories(user).exclude(pk__in=list(conflict_memory_ids(user))).count()
        + inferred_memories(user).count()
    )


def review_totals(user) -> dict[str, int]:
    """How many items each Review section holds (shown beside its heading)."""
    return {
        "conflicts": pending_conflicts(user).count(),
        "quarantined": quarantined_memories(user).count(),
        "disputed": bare_disputes(user).count(),
        "proposals": pending_compaction(user).count(),
        "inferred": inferred_memories(user).count(),
    }


def _memories_by_id(user, proposals: list[ReviewProposal]) -> dict[str, Memory]:
    ids = [pk for proposal in proposals for pk in proposal.memory_ids]
    found = Memory.objects.filter(owner=user).in_bulk(ids) if ids else {}
    return {str(pk): memory for pk, memory in found.items()}


def conflict_cards(user, proposals: list[ReviewProposal]) -> list[Conflict]:
    """Each conflict with its two memories (one query for all) and their marked difference."""
    by_id = _memories_by_id(user, proposals)
    cards = []
    for proposal in proposals:
        old, new = (by_id.get(str(proposal.detail.get(side))) for side in ("old", "new"))
        card = Conflict(proposal, old, new)
        if old is not None and new is not None:
            card.old_html, card.new_html = word_diff(old.content, new.content)
        cards.append(card)
    return cards


def _rules(reason: str) -> list[str]:
    found = RULES_IN_REASON.search(reason)
    return [rule.strip() for rule in found.group(1).split(",") if rule.strip()] if found else []


def quarantine_findings(memory: Memory, reason: str) -> list[dict]:
    """The rules recorded when the write was quarantined, each with the text it caught
    (the rules are read again over the content; a classifier's catch is the opening)."""
    caught = {finding.rule: finding.excerpt for finding in poisoning.rule_findings(memory.content)}
    opening = normalize.visible(memory.content)[:80]
    return [{"rule": rule, "excerpt": caught.get(rule, opening)} for rule in _rules(reason)]


def quarantined_cards(user, memories: list[Memory]) -> list[Quarantined]:
    reasons = dict(
        quarantine_events(user)
        .filter(memory_id__in=[m.pk for m in memories])
        .values_list("memory_id", "reason")
    )
    return [Quarantined(m, quarantine_findings(m, reasons.get(m.pk, ""))) for m in memories]


def _page(user, section: str, queryset, asked: str, cursor: str | None, **options) -> Page:
    return keyset_page(
        queryset, cursor if asked == section else None,
        query=query_key("dashboard", "review", user.pk, section), size=PAGE_SIZES[section],
        **options,
    )  # fmt: skip


def review_queue(user, *, section: str, cursor: str | None) -> ReviewQueue:
    """Every section's first page, except the one `section` names, which `cursor` pages."""
    conflicts = _page(user, "conflicts", pending_conflicts(user), section, cursor,
                      field="created_at")  # fmt: skip
    proposals = _page(
        user, "proposals", pending_compaction(user), section, cursor, field="created_at"
    )
    quarantined = _page(user, "quarantined", quarantined_memories(user), section, cursor)
    disputed = _page(user, "disputed", bare_disputes(user), section, cursor)
    inferred = _page(user, "inferred", inferred_memories(user), section, cursor)
    against = contradicted_by(user, [memory.pk for memory in disputed.items])
    pairs = [(memory, against.get(memory.pk)) for memory in disputed.items]
    conflicts.items = conflict_cards(user, conflicts.items)
    quarantined.items = quarantined_cards(user, quarantined.items)
    by_id = _memories_by_id(user, proposals.items)
    proposals.items = [
        (proposal, memories)
        for proposal in proposals.items
        if (memories := [by_id[pk] for pk in proposal.memory_ids if pk in by_id])
    ]
    shown = [m for pair in pairs for m in pair if m is not None] + inferred.items
    shown += [m for card in conflicts.items for m in card.memories]
    shown += [card.memory for card in quarantined.items]
    with_links(shown + [m for _, memories in proposals.items for m in memories])
    return ReviewQueue(
        section, conflicts, quarantined, disputed, proposals, inferred, pairs, review_totals(user)
    )
