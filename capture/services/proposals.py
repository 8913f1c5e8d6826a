"""`candidates_propose`: extraction's proposals → pending candidates, by the inbox's rules.

- One pending candidate per fingerprint (content + scope): the same statement from another
  agent or thread merges its evidence into that row and adds the agent.
- A fingerprint the owner rejected is never proposed again.
- The owner's never-remember patterns (case-insensitive substrings) drop a proposal whose
  statement or sentence contains one.
- A statement that already lives as a memory (same fingerprint) is known: not proposed.
- A statement close to a live memory (the near-duplicate / contradiction check remember
  reports) names that memory in `replaces`; only the owner's approval ever supersedes it.
"""

from __future__ import annotations

from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from capture.models import Candidate, CandidateStatus, NeverRememberPattern, RejectedFingerprint
from foundation.actors import Actor
from memories import poisoning, text
from memories.models import LIVE_STATUSES, Memory
from memories.services import relations

# Evidence is bounded like every list: the oldest sentences are kept, later ones only count.
MAX_EVIDENCE = 20


def never_remember_hit(patterns: list[str], *texts: str) -> bool:
    folded = [text.normalize(value) for value in texts]
    return any(pattern in value for pattern in patterns for value in folded)


def owner_patterns(owner_id) -> list[str]:
    return [
        text.normalize(pattern)
        for pattern in NeverRememberPattern.objects.filter(owner_id=owner_id).values_list(
            "pattern", flat=True
        )
    ]


def closest_memory_id(owner, *, content: str, scope_type: str, scope_key: str) -> UUID | None:
    """The live memory this statement would update: the strongest duplicate, supersession or
    contradiction the relation judge finds among the memories remember compares it with."""
    judged = relations.assess(
        Actor.owner(owner), content=content, scope_type=scope_type, scope_key=scope_key,
        vector=None,
    )  # fmt: skip
    for item in judged:
        if item.relation in ("contradicts", "supersedes", "duplicate"):
            return item.memory.pk
    return None


def _evidence_item(proposal, *, agent_name: str) -> dict:
    event = proposal.event
    at = event.occurred_at or event.created_at
    return {
        "event_id": event.pk,
        "fingerprint": event.fingerprint,
        "thread_id": event.thread_id,
        "agent": agent_name,
        "sentence": proposal.sentence,
        "at": at.isoformat() if at else None,
    }


def _merge(candidate: Candidate, pairs: list[tuple], agent_name: str) -> None:
    """Merge (proposal, evidence item) pairs into the candidate with one save."""
    known = {(entry.get("event_id"), entry.get("sentence")) for entry in candidate.evidence}
    evidence = list(candidate.evidence)
    for proposal, item in pairs:
        if (item["event_id"], item["sentence"]) not in known and len(evidence) < MAX_EVIDENCE:
            evidence.append(item)
            known.add((item["event_id"], item["sentence"]))
        candidate.confidence = max(candidate.confidence, proposal.confidence)
    candidate.evidence = evidence
    if agent_name and agent_name not in candidate.agents:
        candidate.agents = [*candidate.agents, agent_name]
    candidate.updated_at = timezone.now()
    candidate.save(update_fields=["evidence", "agents", "confidence", "updated_at"])


def _pending(owner_id, fingerprint: str) -> Candidate | None:
    return (
        Candidate.objects.select_for_update()
        .filter(owner_id=owner_id, fingerprint=fingerprint, status=CandidateStatus.PENDING)
        .first()
    )


@transaction.atomic
def candidates_propose(*, thread, proposals: list, agent_name: str) -> int:
    """Store or merge these proposals for the thread's owner; the number created or merged.
    Idempotent per event: the same event's sentence is evidence once."""
    if not proposals:
        return 0
    owner = thread.owner
    patterns = owner_patterns(owner.pk)
    fingerprints = {proposal.fingerprint for proposal in proposals}
    rejected = set(
        RejectedFingerprint.objects.filter(owner=owner, fingerprint__in=fingerprints).values_list(
            "fingerprint", flat=True
        )
    )
    known = set(
        Memory.objects.filter(
            owner=owner, fingerprint__in=fingerprints, status__in=LIVE_STATUSES
        ).values_list("fingerprint", flat=True)
    )
    # A batch often repeats a statement: one lookup and one write per fingerprint.
    grouped: dict[str, list[tuple]] = {}
    for proposal in proposals:
        fingerprint = proposal.fingerprint
        if fingerprint in rejected or fingerprint in known:
            continue
        if patterns and never_remember_hit(patterns, proposal.content, proposal.sentence):
            continue
        grouped.setdefault(fingerprint, []).append(
            (proposal, _evidence_item(proposal, agent_name=agent_name))
        )
    for fingerprint, pairs in grouped.items():
        candidate = _pending(owner.pk, fingerprint)
        if candidate is None:
            candidate, created = _create(owner, *pairs[0], fingerprint, agent_name)
            if created:
                pairs = pairs[1:]
        if candidate is not None and pairs:  # None: the racing candidate was decided meanwhile
            _merge(candidate, pairs, agent_name)
    return sum(len(pairs) for pairs in grouped.values())


def _screened(content: str) -> list[dict]:
    """The poisoning screen's findings on a proposal's text (empty when it reads clean)."""
    verdict = poisoning.screen(content)
    return [{"rule": finding.rule, "excerpt": finding.excerpt} for finding in verdict.findings]


def _create(
    owner, proposal, item: dict, fingerprint: str, agent_name: str
) -> tuple[Candidate, bool]:
    """(a new pending candidate, True), or (the one a concurrent batch created first, False)
    for the caller to merge into."""
    replaces_id = closest_memory_id(
        owner,
        content=proposal.content,
        scope_type=proposal.scope_type,
        scope_key=proposal.scope_key,
    )
    try:
        with transaction.atomic():
            candidate = Candidate.objects.create(
                owner=owner, content=proposal.content, fingerprint=fingerprint, kind=proposal.kind,
                scope_type=proposal.scope_type, scope_key=proposal.scope_key, rule=proposal.rule,
                confidence=proposal.confidence, evidence=[item], agents=[agent_name] if agent_name else [],
                replaces_id=replaces_id, screen_findings=_screened(proposal.content),
            )  # fmt: skip
        return candidate, True
    except IntegrityError:
        return _pending(owner.pk, fingerprint), False
