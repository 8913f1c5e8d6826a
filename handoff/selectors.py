"""Handoff reads: which capsule a resume returns, and the owner's list (shapes: handoff.shapes)."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet
from django.utils import timezone

from foundation.errors import not_found, validation_error
from handoff.contract import ACTIVE, STATE_FILTER_PARAMS, STATE_FILTER_TEMPLATE, STATE_FILTERS
from handoff.models import HandoffCapsule
from memories import gates, poisoning

TEXT_FIELDS = ("task_id", "summary", "decisions", "next_steps", "artifacts", "blockers")
# A resume looks this far back past capsules the poisoning screen flags.
RESUME_SCAN = 20


def capsule_findings(texts: dict) -> list[poisoning.PoisonFinding]:
    """What the poisoning screen finds in a capsule's text fields (lists read line by line,
    as the next agent reads them)."""
    return poisoning.scan_fields({name: gates.field_text(texts[name]) for name in TEXT_FIELDS})


def newest_open_capsule(*, owner, task_id: str, for_update: bool = False) -> HandoffCapsule | None:
    """The newest capsule of this owner's task that has not expired (exact task id match).
    An agent's capsule whose text reads as instructions to agents is never handed on (one
    stored before capsules were screened at creation): the next older one answers."""
    capsules = HandoffCapsule.objects.filter(
        owner=owner, task_id=task_id, expires_at__gt=timezone.now()
    ).order_by("-created_at", "-id")
    if for_update:
        capsules = capsules.select_for_update()
    for capsule in capsules[:RESUME_SCAN]:
        written_by_agent = capsule.from_token_id is not None or capsule.from_agent
        texts = {name: getattr(capsule, name) for name in TEXT_FIELDS}
        if not (written_by_agent and capsule_findings(texts)):
            return capsule
    return None


def handoffs_for_owner(
    *, owner, task_id: str | None = None, state: str | None = None
) -> QuerySet[HandoffCapsule]:
    """The owner's capsules, newest first, optionally one task's or one state's (see
    `handoff.contract`: open, resumed, expired, or active for open or resumed). An unknown
    state is a VALIDATION_ERROR on `state`, whichever door asked."""
    if state and state not in STATE_FILTERS:
        raise validation_error(STATE_FILTER_TEMPLATE, field="state", **STATE_FILTER_PARAMS)
    capsules = HandoffCapsule.objects.filter(owner=owner)
    if task_id:
        capsules = capsules.filter(task_id=task_id)
    now = timezone.now()
    if state == "expired":
        capsules = capsules.filter(expires_at__lte=now)
    elif state == ACTIVE:
        capsules = capsules.filter(expires_at__gt=now)
    elif state == "open":
        capsules = capsules.filter(expires_at__gt=now, resumed_at__isnull=True)
    elif state == "resumed":
        capsules = capsules.filter(expires_at__gt=now, resumed_at__isnull=False)
    return capsules.order_by("-created_at", "-id")


def handoff_get(*, owner, capsule_id) -> HandoffCapsule:
    """One of the owner's capsules; another owner's, or a malformed id, is NOT_FOUND."""
    try:
        capsule_id = UUID(str(capsule_id))
    except ValueError:
        raise not_found("handoff") from None
    capsule = HandoffCapsule.objects.filter(owner=owner, pk=capsule_id).first()
    if capsule is None:
        raise not_found("handoff")
    return capsule
