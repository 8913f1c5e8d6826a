"""The owner's review of the inbox: approve, approve replacing, reject, bulk, never-remember.

Owner-only; agents get FORBIDDEN. A decision claims the pending candidate with a
conditional update inside the transaction, so of two concurrent decisions on one candidate
exactly one wins and the other gets CONFLICT; a failed approval (bad edit, secret, a
memory to replace that is gone) rolls the claim back and leaves the candidate pending.
"""

from __future__ import annotations

from uuid import UUID

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from capture.models import Candidate, CandidateStatus, NeverRememberPattern, RejectedFingerprint
from capture.services.proposals import never_remember_hit
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, not_found, validation_error
from memories import text
from memories.models import (
    LIVE_STATUSES,
    ConfidenceBasis,
    Memory,
    Origin,
    Relation,
    Trust,
    Visibility,
)
from memories.services import memory_link, memory_remember, memory_supersede
from memories.services.validation import MAX_SCOPE_KEY_CHARS

MAX_BULK = 100
MAX_PATTERN_CHARS = 200
MAX_PATTERNS = 500
MAX_PROVENANCE_LINKS = 10
BULK_ACTIONS = ("approve", "reject")


def _candidate_id(value) -> UUID:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise validation_error(gettext_noop("id must be a candidate UUID."), field="id") from None


def candidate_get(*, actor: Actor, candidate_id) -> Candidate:
    actor.require_owner(gettext_noop("review captured candidates"))
    candidate = (
        Candidate.objects.filter(owner=actor.user, pk=_candidate_id(candidate_id))
        .select_related("replaces", "memory")
        .first()
    )
    if candidate is None:
        raise not_found("candidate")
    return candidate


def _claim(actor: Actor, candidate_id, status: str) -> Candidate:
    """Move a pending candidate to `status`, or fail: the conditional update is the lock."""
    candidate = candidate_get(actor=actor, candidate_id=candidate_id)
    now = timezone.now()
    claimed = Candidate.objects.filter(pk=candidate.pk, status=CandidateStatus.PENDING).update(
        status=status, decided_at=now, updated_at=now
    )
    if not claimed:
        current = Candidate.objects.filter(pk=candidate.pk).values_list("status", flat=True).first()
        raise ServiceError(
            ErrorCode.CONFLICT,
            gettext_noop("This candidate was already decided (%(status)s); reload the inbox."),
            [{"id": str(candidate.pk), "status": current}],
            params={"status": current},
        )
    candidate.status, candidate.decided_at, candidate.updated_at = status, now, now
    return candidate


def _replaced(actor: Actor, candidate: Candidate, replace) -> Memory | None:
    """The memory an approval supersedes: the candidate's own proposal (replace=True) or
    one the owner names by id; None when replace is falsy."""
    if not replace:
        return None
    if replace is True:
        if candidate.replaces_id is None:
            raise validation_error(
                gettext_noop("This candidate names no memory to replace."), field="replace"
            )
        memory_id = candidate.replaces_id
    else:
        try:
            memory_id = UUID(str(replace))
        except ValueError:
            raise validation_error(
                gettext_noop("replace must be true or a memory id."), field="replace"
            ) from None
    memory = Memory.objects.filter(owner=actor.user, pk=memory_id).first()
    if memory is None:
        raise not_found("memory to replace")
    if memory.status not in LIVE_STATUSES:
        raise ServiceError(
            ErrorCode.CONFLICT,
            gettext_noop("The memory to replace is %(status)s now; approve without replacing it."),
            [{"id": str(memory.pk), "status": memory.status}],
            params={"status": memory.status},
        )
    return memory


def _provenance(actor: Actor, memory_id, candidate: Candidate) -> None:
    """derived_from links to the captured events the memory came from."""
    seen = set()
    for item in candidate.evidence:
        uri = f"continuity:capture/thread/{item.get('thread_id')}/event/{item.get('event_id')}"
        if uri in seen or len(seen) >= MAX_PROVENANCE_LINKS:
            continue
        seen.add(uri)
        memory_link(actor=actor, from_id=memory_id, relation=Relation.DERIVED_FROM, uri=uri)


@transaction.atomic
def candidate_approve(
    *,
    actor: Actor,
    candidate_id,
    visibility: str | None = None,
    replace=None,
    content: str | None = None,
    kind: str | None = None,
    scope_type: str | None = None,
    scope_key: str | None = None,
) -> Candidate:
    """Owner-only. Creates a confirmed memory (origin capture, private unless `visibility`
    says shared) from the candidate, edited first if content/kind/scope are given, linked
    derived_from its evidence; with `replace`, the memory it names is superseded by it.
    An approval whose statement already lives links the candidate to that memory."""
    actor.require_owner(gettext_noop("approve captured candidates"))
    visibility = visibility or Visibility.PRIVATE
    if visibility not in Visibility.values:
        raise validation_error(
            gettext_noop("visibility must be 'private' or 'shared'."), field="visibility"
        )
    candidate = _claim(actor, candidate_id, CandidateStatus.APPROVED)
    old = _replaced(actor, candidate, replace)
    scope_type = scope_type or candidate.scope_type
    scope_key = (
        candidate.scope_key
        if scope_key is None and scope_type == candidate.scope_type
        else scope_key
    )
    if scope_key is not None and len(scope_key) > MAX_SCOPE_KEY_CHARS:
        raise validation_error(
            gettext_noop("scope_key must be at most %(limit)s characters."),
            field="scope_key", limit=MAX_SCOPE_KEY_CHARS,
        )  # fmt: skip
    receipt = memory_remember(
        actor=actor, content=candidate.content if content is None else content, kind=kind or candidate.kind,
        type=candidate.type if not kind or kind == candidate.kind else None, scope_type=scope_type,
        scope_key=scope_key or None, tags=candidate.tags, trust=Trust.CONFIRMED, visibility=visibility,
        origin=Origin.CAPTURE, confidence=candidate.confidence, confidence_basis=ConfidenceBasis.SOURCE_SUPPORTED,
    )  # fmt: skip
    if old is not None and str(old.pk) != receipt.id:
        memory_supersede(
            actor=actor,
            memory_id=old.pk,
            superseded_by=receipt.id,
            reason=gettext_noop("replaced from the inbox"),
        )
    _provenance(actor, receipt.id, candidate)
    candidate.memory_id = UUID(receipt.id)
    candidate.approved_visibility = visibility
    candidate.save(update_fields=["memory", "approved_visibility"])
    return candidate


@transaction.atomic
def candidate_reject(*, actor: Actor, candidate_id) -> Candidate:
    """Owner-only. The fingerprint is remembered, so the same fact is never proposed again."""
    actor.require_owner(gettext_noop("reject captured candidates"))
    candidate = _claim(actor, candidate_id, CandidateStatus.REJECTED)
    RejectedFingerprint.objects.get_or_create(
        owner=actor.user, fingerprint=candidate.fingerprint, defaults={"content": candidate.content}
    )
    return candidate


@transaction.atomic
def candidate_reopen(*, actor: Actor, candidate_id) -> Candidate:
    """Owner-only undo of a rejection: the candidate is pending again and its fingerprint
    is forgotten, so it may be proposed again. CONFLICT, changing nothing, unless it is
    rejected now (approved, expired or already reopened) or when another pending candidate
    already says the same thing."""
    actor.require_owner(gettext_noop("reopen captured candidates"))
    candidate = candidate_get(actor=actor, candidate_id=candidate_id)
    twin = Candidate.objects.filter(
        owner=actor.user, fingerprint=candidate.fingerprint, status=CandidateStatus.PENDING
    ).exclude(pk=candidate.pk)
    if twin.exists():
        raise ServiceError(
            ErrorCode.CONFLICT,
            gettext_noop(
                "Another pending candidate already proposes this; decide that one instead."
            ),
            [{"id": str(candidate.pk)}],
        )
    now = timezone.now()
    reopened = Candidate.objects.filter(pk=candidate.pk, status=CandidateStatus.REJECTED).update(
        status=CandidateStatus.PENDING, decided_at=None, updated_at=now
    )
    if not reopened:
        raise ServiceError(
            ErrorCode.CONFLICT,
            gettext_noop("Only a rejected candidate can be reopened; this one is %(status)s."),
            [{"id": str(candidate.pk), "status": candidate.status}],
            params={"status": candidate.status},
        )
    RejectedFingerprint.objects.filter(owner=actor.user, fingerprint=candidate.fingerprint).delete()
    candidate.status, candidate.decided_at, candidate.updated_at = (
        CandidateStatus.PENDING,
        None,
        now,
    )
    return candidate


def _bulk_ids(ids) -> list[UUID]:
    if not isinstance(ids, list) or not ids:
        raise validation_error(
            gettext_noop("ids must be a non-empty list of candidate ids."), field="ids"
        )
    if len(ids) > MAX_BULK:
        raise validation_error(
            gettext_noop("At most %(limit)s candidates at a time."), field="ids", limit=MAX_BULK
        )
    parsed, bad = [], []
    for value in ids:
        try:
            parsed.append(UUID(str(value)))
        except ValueError:
            bad.append(str(value))
    if bad:
        raise ServiceError(
            ErrorCode.VALIDATION_ERROR, gettext_noop("Some ids are not candidate ids; nothing was changed."),
            [{"field": "ids", "id": value, "message": "not a UUID"} for value in bad],
        )  # fmt: skip
    return list(dict.fromkeys(parsed))


@transaction.atomic
def candidates_bulk(
    *, actor: Actor, action: str, ids, visibility: str | None = None
) -> list[Candidate]:
    """Approve or reject several candidates in one transaction: all of them or none. An id
    that is unknown, another owner's, or already decided refuses the whole batch."""
    actor.require_owner(gettext_noop("review captured candidates"))
    if action not in BULK_ACTIONS:
        raise validation_error(
            gettext_noop("action must be 'approve' or 'reject'."), field="action"
        )
    wanted = _bulk_ids(ids)
    found = dict(
        Candidate.objects.filter(owner=actor.user, pk__in=wanted).values_list("pk", "status")
    )
    missing = [str(pk) for pk in wanted if pk not in found]
    if missing:
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext_noop("Some candidates do not exist; nothing was changed."),
            [{"field": "ids", "id": pk, "message": "no such candidate"} for pk in missing],
        )  # fmt: skip
    decided = [str(pk) for pk in wanted if found[pk] != CandidateStatus.PENDING]
    if decided:
        raise ServiceError(
            ErrorCode.CONFLICT, gettext_noop("Some candidates were already decided; nothing was changed."),
            [{"field": "ids", "id": pk, "status": found[UUID(pk)]} for pk in decided],
        )  # fmt: skip
    if action == "approve":
        return [
            candidate_approve(actor=actor, candidate_id=pk, visibility=visibility) for pk in wanted
        ]
    return [candidate_reject(actor=actor, candidate_id=pk) for pk in wanted]


# --- never remember ------------------------------------------------------------------------


def _pattern(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise validation_error(gettext_noop("pattern must be a non-empty phrase."), field="pattern")
    value = " ".join(value.split())
    if len(value) > MAX_PATTERN_CHARS:
        raise validation_error(
            gettext_noop("pattern must be at most %(limit)s characters."),
            field="pattern", limit=MAX_PATTERN_CHARS,
        )  # fmt: skip
    return value


@transaction.atomic
def never_remember_add(*, actor: Actor, pattern) -> tuple[NeverRememberPattern, int]:
    """Owner-only. Idempotent (the same phrase in any case is one pattern). Pending
    candidates the phrase matches leave the inbox (expired); returns the pattern and how many."""
    actor.require_owner(gettext_noop("manage never-remember patterns"))
    pattern = _pattern(pattern)
    folded = text.normalize(pattern)
    existing = next(
        (
            row
            for row in NeverRememberPattern.objects.filter(owner=actor.user)
            if text.normalize(row.pattern) == folded
        ),
        None,
    )
    if (
        existing is None
        and NeverRememberPattern.objects.filter(owner=actor.user).count() >= MAX_PATTERNS
    ):
        raise validation_error(
            gettext_noop("At most %(limit)s never-remember patterns."),
            field="pattern", limit=MAX_PATTERNS,
        )  # fmt: skip
    row = existing or NeverRememberPattern.objects.create(owner=actor.user, pattern=pattern)
    expired = [
        candidate.pk
        for candidate in Candidate.objects.filter(
            owner=actor.user, status=CandidateStatus.PENDING
        ).only("pk", "content", "evidence")
        if never_remember_hit(
            [folded], candidate.content, *(e.get("sentence", "") for e in candidate.evidence)
        )
    ]
    now = timezone.now()
    Candidate.objects.filter(pk__in=expired, status=CandidateStatus.PENDING).update(
        status=CandidateStatus.EXPIRED, decided_at=now, updated_at=now
    )
    return row, len(expired)


def never_remember_delete(*, actor: Actor, pattern_id) -> None:
    actor.require_owner(gettext_noop("manage never-remember patterns"))
    deleted, _ = NeverRememberPattern.objects.filter(
        owner=actor.user, pk=_int_id(pattern_id)
    ).delete()
    if not deleted:
        raise not_found("never-remember pattern")


def rejection_forgive(*, actor: Actor, rejection_id) -> None:
    """Owner-only: forget a rejection, so extraction may propose that fact again."""
    actor.require_owner(gettext_noop("forgive rejections"))
    deleted, _ = RejectedFingerprint.objects.filter(
        owner=actor.user, pk=_int_id(rejection_id)
    ).delete()
    if not deleted:
        raise not_found("rejection")


def _int_id(value) -> int:
    text = str(value)
    # isdigit() alone admits "¹" and other digits int() refuses.
    if isinstance(value, bool) or not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise not_found("entry")
    return int(value)
