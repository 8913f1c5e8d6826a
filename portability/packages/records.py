"""Every record of a package checked before anything is written: types, choices, bounds,
secrets, references between records, and the store's uniqueness rules within the package.

`parse_records` returns clean Python values (UUIDs, datetimes) or raises the whole report.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from foundation.errors import ErrorCode, ServiceError
from foundation.input_guard import loads
from handoff import services as handoff_rules
from handoff.models import MAX_SUMMARY_CHARS, TaskStatus
from memories import gates, text
from memories.models import (
    LIVE_STATUSES,
    ConfidenceBasis,
    EventType,
    Kind,
    MemoryType,
    Origin,
    Relation,
    ScopeType,
    Status,
    Trust,
    Visibility,
)
from memories.services import validation as check
from memories.values import check_value
from portability.packages.format import FILES, OPTIONAL_FIELDS, RECORD_FIELDS
from portability.packages.reader import Problems

NULLABLE = {
    "memories": {"key", "value", "confidence", "supersedes", "verified_at"},
    "events": set(),
    "links": {"to_id", "uri"},
    "handoffs": {"resumed_at"},
}
MAX_AGENT_CHARS = 100
MAX_URI_CHARS = 2000


class Invalid(Exception):
    def __init__(self, field: str, message: str, *, secret: bool = False):
        self.field, self.message, self.secret = field, message, secret


def _uuid(value, field):
    try:
        return UUID(value) if isinstance(value, str) else _fail(field, "must be a UUID string")
    except ValueError:
        _fail(field, "must be a UUID string")


def _fail(field, message):
    raise Invalid(field, message)


def _time(value, field):
    if not isinstance(value, str):
        _fail(field, "must be an ISO 8601 date-time string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        _fail(field, "must be an ISO 8601 date-time string")
    if parsed.tzinfo is None:
        _fail(field, "needs a time zone")
    return parsed


def _choice(value, choices, field):
    if value not in choices.values:
        _fail(field, f"must be one of: {', '.join(choices.values)}")
    return value


def _string(value, field, max_chars, *, blank=True):
    if not isinstance(value, str) or "\x00" in value or len(value) > max_chars:
        _fail(field, f"must be a string of at most {max_chars:,} characters, without NUL")
    if not blank and not value.strip():
        _fail(field, "must not be empty")
    return value


def _int(value, field, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        _fail(field, f"must be an integer ≥ {minimum}")
    return value


def _via_service_check(field, work):
    try:
        return work()
    except ServiceError as error:
        _fail(field, error.message)


def _secrets(gate, **fields) -> None:
    """The write gate (memories.gates) over every stored field of a record."""
    try:
        gate(**fields)
    except ServiceError as error:
        if error.code != ErrorCode.SECRET_REJECTED:  # content size, checked above already
            _fail("content", error.message)
        hit = error.details[0]
        raise Invalid(
            hit["field"],
            f"looks like it contains a credential (rule: {hit['rule']}); secrets are never imported",
            secret=True,
        ) from None


def memory(record: dict) -> dict:
    content = _string(record["content"], "content", gates.MAX_CONTENT_CHARS, blank=False)
    scope_type = _choice(record["scope_type"], ScopeType, "scope_type")
    scope_key = _string(record["scope_key"], "scope_key", check.MAX_SCOPE_KEY_CHARS)
    if (scope_type == ScopeType.GLOBAL) != (scope_key == ""):
        _fail("scope_key", "is empty exactly when scope_type is global")
    key = record["key"]
    if key is not None:
        key = _via_service_check("key", lambda: check.label(key, "key", check.MAX_KEY_CHARS))
    value = _via_service_check("value", lambda: check_value(record["value"]))
    confidence, basis = record["confidence"], record["confidence_basis"]
    if basis != "":
        _choice(basis, ConfidenceBasis, "confidence_basis")
    if confidence is not None and (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not 0 <= confidence <= 1
        or basis == ""
    ):
        _fail("confidence", "must be a number from 0 to 1, with a confidence_basis")
    tags = _via_service_check(
        "tags",
        lambda: check.string_list(
            record["tags"], "tags", check.MAX_TAGS, check.MAX_TAG_CHARS, fold=True
        ),
    )
    hints = _via_service_check(
        "retrieval_hints",
        lambda: check.string_list(
            record["retrieval_hints"],
            "retrieval_hints",
            check.MAX_HINTS,
            check.MAX_HINT_CHARS,
            fold=False,
        ),
    )
    source_agent = _string(record["source_agent"], "source_agent", MAX_AGENT_CHARS)
    _secrets(
        gates.gate_memory, content=content, key=key, value=value, scope_key=scope_key, tags=tags,
        retrieval_hints=hints, source_agent=source_agent,
    )  # fmt: skip
    return {
        "id": _uuid(record["id"], "id"), "content": content, "key": key, "value": value,
        "type": _choice(record["type"], MemoryType, "type"), "kind": _choice(record["kind"], Kind, "kind"),
        "scope_type": scope_type, "scope_key": scope_key,
        "trust": _choice(record["trust"], Trust, "trust"), "status": _choice(record["status"], Status, "status"),
        "visibility": _choice(record["visibility"], Visibility, "visibility"),
        "origin": _choice(record["origin"], Origin, "origin"),
        "source_agent": source_agent,
        "confidence": float(confidence) if confidence is not None else None, "confidence_basis": basis,
        "version": _int(record["version"], "version", 1),
        "supersedes": _uuid(record["supersedes"], "supersedes") if record["supersedes"] else None,
        "tags": tags, "retrieval_hints": hints,
        "verified_at": _time(record["verified_at"], "verified_at") if record["verified_at"] else None,
        "created_at": _time(record["created_at"], "created_at"),
        "updated_at": _time(record["updated_at"], "updated_at"),
        "fingerprint": text.fingerprint(content, scope_type, scope_key),
        "held": _held(record["held"]),
    }  # fmt: skip


def _held(value) -> bool:
    """Whether the memory is held for the owner's review (hidden from agents until released)."""
    if not isinstance(value, bool):
        raise Invalid("held", "must be true or false")
    return value


def event(record: dict) -> dict:
    for field in ("patch", "result"):
        if not isinstance(record[field], dict):
            _fail(field, "must be a JSON object")
    texts = {
        "actor_agent": _string(record["actor_agent"], "actor_agent", MAX_AGENT_CHARS),
        "reason": _string(record["reason"], "reason", check.MAX_REASON_CHARS),
        "idempotency_key": _string(record["idempotency_key"], "idempotency_key", check.MAX_IDEMPOTENCY_KEY_CHARS),
    }  # fmt: skip
    _secrets(gates.gate_secrets, patch=record["patch"], result=record["result"], **texts)
    return {
        "memory_id": _uuid(record["memory_id"], "memory_id"),
        "event_type": _choice(record["event_type"], EventType, "event_type"),
        "version": _int(record["version"], "version", 1),
        "patch": record["patch"], "result": record["result"], **texts,
        "created_at": _time(record["created_at"], "created_at"),
    }  # fmt: skip


def link(record: dict) -> dict:
    to_id = _uuid(record["to_id"], "to_id") if record["to_id"] is not None else None
    uri = record["uri"]
    if (to_id is None) == (uri is None):
        _fail("to_id", "a link has either to_id or uri")
    if uri is not None:
        _string(uri, "uri", MAX_URI_CHARS, blank=False)
    agent = _string(record["created_by_agent"], "created_by_agent", MAX_AGENT_CHARS)
    _secrets(gates.gate_secrets, uri=uri, created_by_agent=agent)
    return {
        "from_id": _uuid(record["from_id"], "from_id"), "to_id": to_id, "uri": uri or "",
        "relation": _choice(record["relation"], Relation, "relation"),
        "created_by_agent": agent,
        "created_at": _time(record["created_at"], "created_at"),
    }  # fmt: skip


def handoff(record: dict) -> dict:
    lists = {
        field: _via_service_check(field, lambda field=field: handoff_rules._items(record[field], field, handoff_rules.LIST_FIELDS[field]))
        for field in handoff_rules.LIST_FIELDS
    }  # fmt: skip
    task_id = _via_service_check("task_id", lambda: handoff_rules.task_id_value(record["task_id"]))
    summary = _string(record["summary"], "summary", MAX_SUMMARY_CHARS, blank=False)
    agents = {
        field: _string(record[field], field, MAX_AGENT_CHARS) for field in ("from_agent", "resumed_by")
    }  # fmt: skip
    _secrets(gates.gate_secrets, task_id=task_id, summary=summary, **lists, **agents)
    return {
        "id": _uuid(record["id"], "id"), "task_id": task_id, "summary": summary,
        "status": _choice(record["status"], TaskStatus, "status"), **lists, **agents,
        "created_at": _time(record["created_at"], "created_at"),
        "expires_at": _time(record["expires_at"], "expires_at"),
        "resumed_at": _time(record["resumed_at"], "resumed_at") if record["resumed_at"] else None,
        "resume_count": _int(record["resume_count"], "resume_count", 0),
    }  # fmt: skip


CHECKS = {"memories": memory, "events": event, "links": link, "handoffs": handoff}


def parse_records(files: dict[str, bytes]) -> dict[str, list[dict]]:
    """Every record of every file, validated; raises the whole report on any problem."""
    problems = Problems()
    secret_found = False
    parsed: dict[str, list[dict]] = {}
    for kind, name in FILES.items():
        parsed[kind] = []
        expected = set(RECORD_FIELDS[kind])
        for number, line in enumerate(files[name].splitlines(), start=1):
            try:
                # Strict: no nesting past the bound, no integer past 2^53, no lone surrogate.
                record = loads(line, where="the line")
            except ServiceError as error:
                field = error.details[0]["field"] if error.details else None
                problems.add(error.message, file=name, line=number, field=field)
                continue
            if not isinstance(record, dict):
                problems.add("not a JSON object", file=name, line=number)
                continue
            for field, default in OPTIONAL_FIELDS[kind].items():
                record.setdefault(field, default)
            unknown, missing = sorted(set(record) - expected), sorted(expected - set(record))
            if unknown or missing:
                detail = "; ".join(filter(None, [
                    f"unknown fields: {', '.join(unknown)}" if unknown else "",
                    f"missing fields: {', '.join(missing)}" if missing else "",
                ]))  # fmt: skip
                problems.add(detail, file=name, line=number)
                continue
            for field in expected - NULLABLE[kind]:
                if record[field] is None:
                    record[field] = _NULL_SENTINEL
            try:
                clean = CHECKS[kind](record)
            except Invalid as error:
                problems.add(error.message, file=name, line=number, field=error.field)
                secret_found |= error.secret
                continue
            except Exception:  # a wrong type slipped past a check: still this record's fault
                problems.add("a value has the wrong type", file=name, line=number)
                continue
            clean["_line"] = number
            parsed[kind].append(clean)
    try:
        problems.refuse_if_any()
    except ServiceError as error:
        if secret_found:  # the same refusal, under the code every write gate answers with
            raise ServiceError(ErrorCode.SECRET_REJECTED, error.message, error.details) from None
        raise
    _check_package_rules(parsed, problems)
    problems.refuse_if_any()
    return parsed


class _Null:
    """Stands for a null where a value is required, so every check refuses it."""

    def __repr__(self):
        return "null"


_NULL_SENTINEL = _Null()


def _check_package_rules(parsed: dict, problems: Problems) -> None:
    memories_file, links_file, handoffs_file = FILES["memories"], FILES["links"], FILES["handoffs"]
    ids, live_fingerprints, active_keys = set(), {}, {}
    for record in parsed["memories"]:
        line = record["_line"]
        if record["id"] in ids:
            problems.add("duplicate id", file=memories_file, line=line, field="id")
        ids.add(record["id"])
        if record["status"] in LIVE_STATUSES:
            if record["fingerprint"] in live_fingerprints:
                problems.add(
                    f"the same statement is live twice (line {live_fingerprints[record['fingerprint']]})",
                    file=memories_file,
                    line=line,
                    field="content",
                )
            live_fingerprints.setdefault(record["fingerprint"], line)
        if record["status"] == Status.ACTIVE and record["key"] is not None:
            slot = (record["scope_type"], record["scope_key"], record["key"])
            if slot in active_keys:
                problems.add(
                    f"two active memories hold this key (line {active_keys[slot]})",
                    file=memories_file,
                    line=line,
                    field="key",
                )
            active_keys.setdefault(slot, line)
    for record in parsed["memories"]:
        if record["supersedes"] is not None and record["supersedes"] not in ids:
            problems.add(
                "supersedes a memory that is not in the package",
                file=memories_file,
                line=record["_line"],
                field="supersedes",
            )
    edges = set()
    for record in parsed["links"]:
        line = record["_line"]
        for field in ("from_id", "to_id"):
            if record[field] is not None and record[field] not in ids:
                problems.add(
                    "links a memory that is not in the package",
                    file=links_file,
                    line=line,
                    field=field,
                )
        if record["from_id"] == record["to_id"]:
            problems.add(
                "a memory cannot link to itself", file=links_file, line=line, field="to_id"
            )
        edge = (record["from_id"], record["to_id"], record["uri"], record["relation"])
        if edge in edges:
            problems.add("the same link appears twice", file=links_file, line=line)
        edges.add(edge)
    capsule_ids = set()
    for record in parsed["handoffs"]:
        if record["id"] in capsule_ids:
            problems.add("duplicate id", file=handoffs_file, line=record["_line"], field="id")
        capsule_ids.add(record["id"])
