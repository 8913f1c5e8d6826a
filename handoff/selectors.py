"""Handoff reads: which capsule a resume returns, and the owner's list (shapes: handoff.shapes)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from handoff.models import HandoffCapsule


def newest_open_capsule(*, owner, task_id: str, for_update: bool = False) -> HandoffCapsule | None:
    """The newest capsule of this owner's task that has not expired (exact task id match)."""
    capsules = HandoffCapsule.objects.filter(
        owner=owner, task_id=task_id, expires_at__gt=timezone.now()
    ).order_by("-created_at", "-id")
    if for_update:
        capsules = capsules.select_for_update()
    return capsules.first()


def handoffs_for_owner(
    *, owner, task_id: str | None = None, state: str | None = None
) -> QuerySet[HandoffCapsule]:
    """The owner's capsules, newest first, optionally one task's or one state's
    (open, resumed, expired; active is open or resumed)."""
    capsules = HandoffCapsule.objects.filter(owner=owner)
    if task_id:
        capsules = capsules.filter(task_id=task_id)
    now = timezone.now()
    if state == "expired":
        capsules = capsules.filter(expires_at__lte=now)
    elif state == "active":
        capsules = capsules.filter(expires_at__gt=now)
    elif state == "open":
        capsules = capsules.filter(expires_at__gt=now, resumed_at__isnull=True)
    elif state == "resumed":
        capsules = capsules.filter(expires_at__gt=now, resumed_at__isnull=False)
    return capsules.order_by("-created_at", "-id")
