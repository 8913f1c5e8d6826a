"""`memory_remember`: the one way a statement enters memory (DESIGN §4, remember flow).

gate → normalise + fingerprint → keyed write (compare-and-set, replace or merge, trust rule)
→ exact duplicate? → near-duplicate / contradiction report → write + event in one
transaction → receipt. A replayed idempotency key returns the first receipt unchanged.

Visibility first: the key holder, the duplicates and the similar or contradicting memories
are looked for only among what the writer may read (memories_visible_to). A private holder
of the key that the writer cannot read is, for the writer, not there: the write becomes a
memory of its own beside it (the key and the statement are unique per visibility) and the
owner gets a Review proposal over the two; the private memory is never changed.

Disputed writes (quarantined as instructions to agents, or contradicting what the owner
trusts) are stored `held`: no agent reads them, whatever their status later, until the
owner releases them (confirm, lock or correct).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, validation_error
from memories import gates, poisoning, text
from memories.embeddings.vectors import statement_text, statement_vector, store_statement_vector
from memories.models import (
    LIVE_STATUSES,
    TRUST_RANK,
    EventType,
    Kind,
    Memory,
    MemoryLink,
    MemoryType,
    Origin,
    Relation,
    Status,
)
from memories.selectors import is_visible_to, memories_visible_to
from memories.services import reasons, relations
from memories.services import validation as check
from memories.services.common import (
    lock_key_holders,
    record_event,
    refuse_agent_on_owner_trusted,
    save_new,
    serialize_writers,
    supersede,
    visible_holder,
)
from memories.services.idempotency import idempotent
from memories.services.receipts import RememberReceipt, propose_review
from memories.services.receipts import receipt as _receipt
from memories.values import check_value, merge_values

WRITE_MODES = ("replace", "merge")
# What agents write that other agents will read as text: scanned for instructions to agents.
POISON_FIELDS = ("content", "key", "value", "tags", "retrieval_hints")
# Writers that lose a race on a uniqueness constraint start over this many times.
WRITE_ATTEMPTS = 3


@dataclass(frozen=True)
class RememberRequest:
    content: str
    kind: str
    type: str
    scope_type: str
    scope_key: str
    key: str | None
    value: dict | None
    write_mode: str
    expected_version: int | None
    tags: list[str]
    retrieval_hints: list[str]
    confidence: float | None
    confidence_basis: str
    trust: str
    visibility: str
    origin: str
    # Poisoning findings (agent writes only): the memory is stored disputed, for the owner.
    quarantine: tuple[dict, ...] = ()

    @property
    def fingerprint(self) -> str:
        return text.fingerprint(self.content, self.scope_type, self.scope_key)

    def digest(self) -> str:
        encoded = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(encoded.encode()).hexdigest()


def memory_remember(
    *,
    actor: Actor,
    content: str,
    kind: str,
    type: str | None = None,
    scope_type: str | None = None,
    scope_key: str | None = None,
    key: str | None = None,
    value: dict | None = None,
    write_mode: str | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    tags: list[str] | None = None,
    retrieval_hints: list[str] | None = None,
    confidence: float | None = None,
    confidence_basis: str | None = None,
    trust: str | None = None,
    visibility: str | None = None,
    origin: str | None = None,
) -> RememberReceipt:
    """Write a memory and say what happened. Never blocks on similarity; raises
    ServiceError (nothing written) on bad input, a secret, a forbidden trust or scope, or a
    failed compare-and-set. Idempotent per (caller, idempotency_key)."""
    actor.require_scope("memories:write")
    request = _validated(
        actor,
        content=content, kind=kind, type=type, scope_type=scope_type, scope_key=scope_key,
        key=key, value=value, write_mode=write_mode, expected_version=expected_version,
        idempotency_key=idempotency_key, tags=tags, retrieval_hints=retrieval_hints,
        confidence=confidence, confidence_basis=confidence_basis, trust=trust,
        visibility=visibility, origin=origin,
    )  # fmt: skip
    # Embedded here, outside the transaction: the judge reads it, the memory keeps it.
    vector = statement_vector(
        statement_text(request.content, request.retrieval_hints, request.tags)
    )
    opinions = relations.model_opinions(
        actor, content=request.content, scope_type=request.scope_type,
        scope_key=request.scope_key, vector=vector,
    )  # fmt: skip
    for attempt in range(WRITE_ATTEMPTS):
        try:
            with transaction.atomic():
                receipt = idempotent(
                    actor=actor,
                    key=idempotency_key,
                    operation="remember",
                    request_digest=request.digest(),
                    perform=lambda: _write(
                        actor, request, idempotency_key or "", vector, opinions
                    ).as_dict(),
                )
            return RememberReceipt.from_dict(receipt)
        except IntegrityError:
            # A concurrent writer took the key, fingerprint or idempotency key first; the
            # next attempt sees its committed row and answers accordingly.
            if attempt == WRITE_ATTEMPTS - 1:
                raise ServiceError(ErrorCode.CONFLICT, gettext_noop("A concurrent write kept colliding; try again.")) from None  # fmt: skip
    raise AssertionError("unreachable")


def _validated(actor: Actor, **fields) -> RememberRequest:
    content = check.statement(fields["content"])
    kind = check.choice(fields["kind"], Kind, "kind")
    memory_type = check.choice(
        fields["type"],
        MemoryType,
        "type",
        default=check.DEFAULT_TYPE.get(kind, MemoryType.SEMANTIC),
    )
    scope_type, scope_key = check.scope(actor, fields["scope_type"], fields["scope_key"])
    key = check.label(fields["key"], "key", check.MAX_KEY_CHARS, required=False)
    value = check_value(fields["value"])
    write_mode = fields["write_mode"] or "replace"
    if write_mode not in WRITE_MODES:
        raise validation_error(gettext_noop("write_mode must be 'replace' or 'merge'."), field="write_mode")  # fmt: skip
    if write_mode == "merge" and (key is None or value is None):
        raise validation_error(gettext_noop("write_mode 'merge' needs a key and a value."), field="write_mode")  # fmt: skip
    expected_version = check.expected_version(fields["expected_version"])
    if expected_version is not None and key is None:
        raise validation_error(gettext_noop("expected_version applies to keyed writes only."), field="expected_version")  # fmt: skip
    tags = check.string_list(fields["tags"], "tags", check.MAX_TAGS, check.MAX_TAG_CHARS, fold=True)
    hints = check.string_list(
        fields["retrieval_hints"],
        "retrieval_hints",
        check.MAX_HINTS,
        check.MAX_HINT_CHARS,
        fold=False,
    )
    confidence, basis = check.confidence(actor, fields["confidence"], fields["confidence_basis"])
    origin = fields["origin"] or (Origin.USER if actor.is_owner else Origin.AGENT)
    if origin not in Origin.values or (actor.is_agent and origin != Origin.AGENT):
        raise validation_error(gettext_noop("origin is set by Continuity, not by agents."), field="origin")  # fmt: skip
    texts = gates.gate_memory(
        content=content, key=key, value=value, scope_key=scope_key, tags=tags,
        retrieval_hints=hints, idempotency_key=fields["idempotency_key"],
    )  # fmt: skip
    # The owner's own words are theirs to keep; an agent's are read as other agents will.
    quarantine = (
        ()
        if actor.is_owner
        else tuple(
            finding.as_dict()
            for finding in poisoning.scan_fields({name: texts[name] for name in POISON_FIELDS})
        )
    )
    return RememberRequest(
        content=content, kind=kind, type=memory_type, scope_type=scope_type, scope_key=scope_key,
        key=key, value=value, write_mode=write_mode, expected_version=expected_version, tags=tags,
        retrieval_hints=hints, confidence=confidence, confidence_basis=basis,
        trust=check.trust(actor, fields["trust"]), visibility=check.visibility(actor, fields["visibility"]),
        origin=origin, quarantine=quarantine,
    )  # fmt: skip


def _write(
    actor: Actor, request: RememberRequest, idempotency_key: str, vector, opinions
) -> RememberReceipt:
    # Lock order, always: key, then fingerprint, then rows.
    current, hidden = None, []
    if request.key is not None:
        holders = lock_key_holders(
            owner_id=actor.user.pk, scope_type=request.scope_type,
            scope_key=request.scope_key, key=request.key,
        )  # fmt: skip
        # Visibility first: a holder the writer may not read is, for it, not there.
        current = visible_holder(actor, holders, request.visibility)
        hidden = [holder for holder in holders if not is_visible_to(actor, holder)]
    serialize_writers("fingerprint", actor.user.pk, request.fingerprint)
    if request.key is not None:
        _compare_and_set(request.expected_version, current)

    value = request.value
    if current is not None and request.write_mode == "merge":
        # The merged whole is held to the same bounds as a value sent whole: six merges
        # grew one to 92 KB past the 16 KB limit.
        value = check_value(merge_values(current.value, request.value))
    if current is not None and current.content == request.content and current.value == value:
        return _receipt(current, action="unchanged")

    duplicates = memories_visible_to(actor).filter(
        fingerprint=request.fingerprint, status__in=LIVE_STATUSES
    )
    if current is not None:
        duplicates = duplicates.exclude(pk=current.pk)
    duplicate = duplicates.first()
    if duplicate is not None:
        # The same statement in the same scope already lives: answer with it, write nothing.
        return _receipt(duplicate, action="duplicate", duplicate_of=duplicate)

    if request.quarantine:
        return _write_quarantined(actor, request, value, idempotency_key, vector)
    if current is not None and not _may_overwrite(actor, current):
        return _write_disputed(actor, request, value, current, idempotency_key, vector)

    judged = relations.assess(
        actor, content=request.content, scope_type=request.scope_type,
        scope_key=request.scope_key, vector=vector, exclude=[current.pk] if current else [],
        episodic=request.type == MemoryType.EPISODIC, opinions=opinions,
    )  # fmt: skip
    repeated = (
        None
        if current
        else relations.duplicate_of(
            judged,
            key=request.key,
            scope=(request.scope_type, request.scope_key),
            visibility=request.visibility,
        )
    )
    if repeated is not None and TRUST_RANK[repeated.memory.trust] >= TRUST_RANK[request.trust]:
        # The same statement in other words: the existing memory answers, corroborated.
        relations.corroborate(actor, repeated, idempotency_key)
        return _receipt(repeated.memory, action="duplicate", duplicate_of=repeated.memory,
                        relations=[repeated.as_dict()])  # fmt: skip
    stands = relations.standing_owner_memory(actor, judged)
    if stands is not None:
        return _write_disputed(actor, request, value, stands.memory, idempotency_key, vector,
                               judged=judged, stands=stands)  # fmt: skip

    memory = _new_memory(actor, request, value, previous=current)
    if current is None:
        action = EventType.CREATED
        save_new(memory)
    else:
        action = EventType.MERGED if request.write_mode == "merge" else EventType.REPLACED
        supersede(actor, current, successor=memory, idempotency_key=idempotency_key)
    store_statement_vector(memory, vector)
    record_event(
        actor=actor,
        memory=memory,
        event_type=action,
        patch=_patch(request),
        idempotency_key=idempotency_key,
    )
    if actor.is_agent:
        propose_review(actor, memory, hidden)
    found = relations.settle(actor, memory, judged)
    return _receipt(memory, action=str(action), relations=found)


def _compare_and_set(expected_version: int | None, current: Memory | None) -> None:
    if expected_version is None:
        return
    actual = current.version if current else 0
    if expected_version != actual:
        raise ServiceError(
            ErrorCode.VERSION_CONFLICT,
            gettext_noop("expected version %(expected)s, but the key is at version %(actual)s."),
            [{"field": "expected_version", "expected": expected_version, "actual": actual}],
            params={"expected": expected_version, "actual": actual},
        )


def _may_overwrite(actor: Actor, current: Memory) -> bool:
    """`current` is one the writer may see (visible_holder); only trust stands in the way."""
    if actor.is_owner:
        return True
    try:
        refuse_agent_on_owner_trusted(actor, current, gettext_noop("overwrite"))
    except ServiceError:
        return False
    return True


def _write_disputed(actor, request, value, current, idempotency_key, vector, *, judged=(),
                    stands=None) -> RememberReceipt:  # fmt: skip
    """An agent contradicting or replacing what the owner confirmed (by key, or as the
    judge reads it): keep both, hold the new one out of agents' reads, let the owner decide."""
    memory = _new_memory(actor, request, value, previous=None)
    memory.status = Status.DISPUTED
    memory.held = True
    save_new(memory)
    store_statement_vector(memory, vector)
    record_event(
        actor=actor, memory=memory, event_type=EventType.CREATED, patch=_patch(request),
        reason=reasons.contradicts(current.trust, current.pk), idempotency_key=idempotency_key,
    )  # fmt: skip
    if stands is None:
        MemoryLink.objects.create(
            owner=actor.user, from_memory=memory, to_memory=current,
            relation=Relation.CONTRADICTS, created_by_agent=actor.agent_name,
        )  # fmt: skip
        found = [{"id": str(current.pk), "relation": "contradicts", "confidence": 1.0,
                  "signals": ["same key"], "action": "disputed"}]  # fmt: skip
    else:
        found = relations.settle(actor, memory, list(judged), disputed_by=stands)
    return _receipt(memory, action="disputed", relations=found, stands=current)


def _write_quarantined(actor, request, value, idempotency_key, vector) -> RememberReceipt:
    """A write that reads as instructions to agents: kept, disputed, out of every agent's
    context until the owner confirms it (it then takes over its key) or deletes it."""
    memory = _new_memory(actor, request, value, previous=None)
    memory.status = Status.DISPUTED
    memory.held = True
    save_new(memory)
    store_statement_vector(memory, vector)
    rules = sorted({finding["rule"] for finding in request.quarantine})
    record_event(
        actor=actor, memory=memory, event_type=EventType.CREATED, patch=_patch(request),
        reason=reasons.quarantined(rules),
        idempotency_key=idempotency_key,
    )  # fmt: skip
    return _receipt(memory, action="quarantined", quarantine=list(request.quarantine))


def _new_memory(actor: Actor, request: RememberRequest, value, previous: Memory | None) -> Memory:
    trust = request.trust
    if (
        previous is not None
        and actor.is_owner
        and previous.trust == "locked"
        and trust == "confirmed"
    ):
        trust = "locked"  # the owner editing a locked memory keeps it locked
    memory = Memory(
        owner=actor.user, content=request.content, key=request.key, value=value,
        type=request.type, kind=request.kind, scope_type=request.scope_type,
        scope_key=request.scope_key, trust=trust, status=Status.ACTIVE,
        visibility=request.visibility, origin=request.origin, source_agent=actor.agent_name,
        created_by_token=actor.token, confidence=request.confidence,
        confidence_basis=request.confidence_basis,
        version=previous.version + 1 if previous else 1, supersedes=previous,
        fingerprint=request.fingerprint, tags=request.tags, retrieval_hints=request.retrieval_hints,
    )  # fmt: skip
    memory.full_clean(validate_unique=False, validate_constraints=False)
    return memory


def _patch(request: RememberRequest) -> dict:
    patch = {
        "content": request.content, "kind": request.kind, "type": request.type,
        "scope_type": request.scope_type, "scope_key": request.scope_key, "key": request.key,
        "value": request.value, "write_mode": request.write_mode, "trust": request.trust,
        "visibility": request.visibility, "tags": request.tags,
        "retrieval_hints": request.retrieval_hints,
    }  # fmt: skip
    if request.confidence is not None:
        patch |= {"confidence": request.confidence, "confidence_basis": request.confidence_basis}
    return patch
