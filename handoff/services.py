"""Handoff writes: create a capsule, resume a task, expire a capsule (DESIGN §4, handoff).

Agents need the `handoff` scope; the owner may do everything. Who wrote or resumed a
capsule always comes from the token, never from an argument.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import (
    AT_MOST_ITEMS,
    EACH_AT_MOST,
    LIST_OF_STRINGS,
    NO_NUL,
    ErrorCode,
    ServiceError,
    not_found,
    validation_error,
)
from handoff.contract import (
    MAX_ARTIFACT_CHARS,
    MAX_EXPIRY_DAYS,
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    MAX_SUMMARY_CHARS,
    MAX_TASK_ID_CHARS,
    SCOPE,
    default_expiry_days,
)
from handoff.models import HandoffCapsule, TaskStatus
from handoff.selectors import capsule_findings, newest_open_capsule
from memories import gates
from memories.services import validation as check

LIST_FIELDS = {
    "decisions": MAX_ITEM_CHARS,
    "next_steps": MAX_ITEM_CHARS,
    "artifacts": MAX_ARTIFACT_CHARS,
    "blockers": MAX_ITEM_CHARS,
}


def task_id_value(value) -> str:
    return check.label(value, "task_id", MAX_TASK_ID_CHARS)


def _items(values, field: str, max_chars: int) -> list[str]:
    """A bounded list of non-empty strings, trimmed, order kept (duplicates are kept too:
    two identical next steps may be meant)."""
    if values is None:
        return []
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise validation_error(LIST_OF_STRINGS, field=field, name=field)
    items = [value.strip() for value in values if value.strip()]
    if len(items) > MAX_ITEMS:
        raise validation_error(AT_MOST_ITEMS, field=field, name=field, limit=MAX_ITEMS)
    for value in items:
        if "\x00" in value:
            raise validation_error(NO_NUL, field=field, name=field)
        if len(value) > max_chars:
            raise validation_error(
                EACH_AT_MOST,
                field=field, name=field, limit=f"{max_chars:,}",
            )  # fmt: skip
    return items


def _expiry(value, now: datetime) -> datetime:
    if value is None:
        return now + timedelta(days=default_expiry_days())
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise validation_error(
                gettext_noop("expires_at must be an ISO 8601 date-time."), field="expires_at"
            ) from None
    if not isinstance(value, datetime):
        raise validation_error(gettext_noop("expires_at must be a date-time."), field="expires_at")
    if timezone.is_naive(value):
        raise validation_error(
            gettext_noop("expires_at needs a time zone (e.g. 2026-12-01T09:00:00Z)."),
            field="expires_at",
        )
    if value <= now:
        raise validation_error(
            gettext_noop("expires_at must be in the future."), field="expires_at"
        )
    if value > now + timedelta(days=MAX_EXPIRY_DAYS):
        raise validation_error(
            gettext_noop("expires_at is at most %(days)s days ahead."),
            field="expires_at", days=MAX_EXPIRY_DAYS,
        )  # fmt: skip
    return value


def _refuse_instructions(texts: dict) -> None:
    """The next agent reads a capsule as its brief, so an agent's capsule that reads as
    instructions to agents (the memories' poisoning screen) is refused: nothing is stored,
    and the error names each field and rule."""
    findings = capsule_findings(texts)
    if findings:
        rules = ", ".join(sorted({finding.rule for finding in findings}))
        raise ServiceError(
            ErrorCode.VALIDATION_ERROR,
            gettext_noop(
                "This handoff reads as instructions to agents (%(rules)s); nothing was stored. "
                "Say where the task stands, not what the next agent must do beyond the task."
            ),
            [{"field": finding.field, "rule": finding.rule, "excerpt": finding.excerpt}
             for finding in findings],
            params={"rules": rules},
        )  # fmt: skip


def handoff_create(
    *,
    actor: Actor,
    task_id: str,
    summary: str,
    status: str | None = None,
    decisions: list[str] | None = None,
    next_steps: list[str] | None = None,
    artifacts: list[str] | None = None,
    blockers: list[str] | None = None,
    expires_at: datetime | str | None = None,
) -> HandoffCapsule:
    """Leave a capsule for the next agent on `task_id`. Not idempotent: each call writes a
    new capsule, and the newest one wins on resume. Raises ServiceError (nothing written)
    on bad input, a secret in any text, an agent's text that reads as instructions to
    agents (the poisoning screen), or a token without the `handoff` scope."""
    actor.require_scope(SCOPE)
    now = timezone.now()
    task_id = task_id_value(task_id)
    summary = check.statement(summary, "summary")
    if not summary:
        raise validation_error(
            gettext_noop("summary is empty; say where the task stands."), field="summary"
        )
    if len(summary) > MAX_SUMMARY_CHARS:
        raise validation_error(
            gettext_noop("summary is %(length)s characters; the limit is %(limit)s."),
            field="summary", length=f"{len(summary):,}", limit=f"{MAX_SUMMARY_CHARS:,}",
        )  # fmt: skip
    status = check.choice(status, TaskStatus, "status", default=TaskStatus.IN_PROGRESS)
    lists = {
        field: _items(value, field, LIST_FIELDS[field])
        for field, value in (
            ("decisions", decisions), ("next_steps", next_steps),
            ("artifacts", artifacts), ("blockers", blockers),
        )
    }  # fmt: skip
    expires = _expiry(expires_at, now)
    gates.gate_secrets(task_id=task_id, summary=summary, **lists)
    if actor.is_agent:
        _refuse_instructions({"task_id": task_id, "summary": summary, **lists})
    capsule = HandoffCapsule(
        owner=actor.user, task_id=task_id, summary=summary, status=status,
        from_agent=actor.agent_name, from_token=actor.token, created_at=now,
        expires_at=expires, **lists,
    )  # fmt: skip
    capsule.full_clean(validate_constraints=False)
    capsule.save()
    return capsule


@transaction.atomic
def handoff_resume(*, actor: Actor, task_id: str) -> HandoffCapsule | None:
    """The newest unexpired capsule of exactly this task of the actor's owner, marked as
    resumed by the caller (the latest resume is kept, and counted), or None when there is
    none. Never returns another task's or another owner's capsule."""
    actor.require_scope(SCOPE)
    task_id = task_id_value(task_id)
    capsule = newest_open_capsule(owner=actor.user, task_id=task_id, for_update=True)
    if capsule is None:
        return None
    capsule.resumed_at = timezone.now()
    capsule.resumed_by = actor.agent_name
    capsule.resume_count += 1
    capsule.save(update_fields=["resumed_at", "resumed_by", "resume_count"])
    return capsule


@transaction.atomic
def handoff_expire(*, actor: Actor, capsule_id) -> HandoffCapsule:
    """Owner-only: the capsule expires now, so no agent resumes it again. Idempotent: an
    already expired capsule keeps its original expiry time."""
    actor.require_owner(gettext_noop("expire a handoff"))
    capsule = (
        HandoffCapsule.objects.select_for_update()
        .filter(owner=actor.user, pk=_capsule_id(capsule_id))
        .first()
    )
    if capsule is None:
        raise not_found("handoff")
    now = timezone.now()
    if capsule.expires_at > now:
        capsule.expires_at = now
        capsule.save(update_fields=["expires_at"])
    return capsule


def _capsule_id(value):
    from uuid import UUID

    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise validation_error(gettext_noop("id must be a handoff UUID."), field="id") from None
