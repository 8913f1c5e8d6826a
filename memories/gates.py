"""The write gate: what may never enter the memory store (DESIGN §1.3), at one point.

Every write path (remember, correct, checkpoint, forget, links, package import and the
importers from other tools, handoff capsules) hands *every* field it stores to this module:
`gate_memory` for a memory's fields, `gate_secrets` for any other stored text. A write is
rejected, not silently scrubbed, when it carries a credential: the caller gets a clear
SECRET_REJECTED naming the rule and the field, and can rephrase. Captured conversations
cannot be bounced, so capture calls `redact` with the same rule table
(memories.secret_rules).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping

from django.utils.translation import gettext_noop

from foundation.errors import ErrorCode, ServiceError, validation_error
from memories.models.choices import MAX_CONTENT_CHARS  # the data model's bound (DESIGN §3)
from memories.secret_rules import SecretFinding, SecretRule, published_example
from memories.secret_shapes import RULE_NAMES, SECRET_RULES
from memories.secret_text import MAX_DEPTH, DecodeBudget, encoded_segments, normalise

__all__ = [
    "MAX_CONTENT_CHARS",
    "RULE_NAMES",
    "SECRET_RULES",
    "SecretFinding",
    "SecretRule",
    "check_no_secrets",
    "check_size",
    "field_text",
    "find_secrets",
    "gate_memory",
    "gate_secrets",
    "may_hold_secret",
    "redact",
]


# --- the gate -----------------------------------------------------------------------------

# A text in which no rule can match, found cheaply: ASCII text (normalisation may turn
# other characters into anything) with no encoded segment to decode (a %-escape, an HTML
# entity, a base64-looking run), no digit pair (the personal numbers, the rules without
# hints) and none of the strings every match of some rule contains (its hints).
_MAY_HOLD_SECRET = re.compile(
    r"[^\x00-\x7f]|%[0-9A-Fa-f]{2}|&#?[A-Za-z0-9]+;|[A-Za-z0-9+/_-]{16}|[0-9]{2}|"
    + "|".join(
        re.escape(hint)
        for hint in sorted({hint for rule in SECRET_RULES for hint in rule.hints}, key=len)[::-1]
    ),
    re.IGNORECASE,
)


def may_hold_secret(text: str) -> bool:
    """False only when `find_secrets(text)` is certainly empty: most conversation skips
    the full scan."""
    return bool(text) and _MAY_HOLD_SECRET.search(text) is not None


def find_secrets(text: str) -> list[SecretFinding]:
    """Findings in text order, as spans of the original text. The rules read the text
    normalised (memories.secret_text); %-encoded and base64 segments are decoded and read
    again, a few levels deep, and a secret found inside one reports the whole encoded
    segment. A finding inside another one (a bearer token inside an Authorization header)
    is dropped; partly overlapping ones are both kept."""
    if not text:
        return []
    ranked = _ranked_findings(text, 0, DecodeBudget())
    ranked.sort(key=lambda pair: (pair[0].start, pair[0].start - pair[0].end, pair[1]))
    kept: list[SecretFinding] = []
    reach = -1
    for finding, _ in ranked:
        if finding.end <= reach:
            continue  # contained in a kept finding that starts no later
        if published_example(text, finding.start, finding.end):
            continue
        kept.append(finding)
        reach = finding.end
    return kept


def _ranked_findings(text: str, depth: int, budget: DecodeBudget) -> list[tuple]:
    normalised = normalise(text)
    ranked = []
    lowered = normalised.text.lower()
    present: dict[str, bool] = {}  # many rules share a hint: each is looked for once
    for rank, rule in enumerate(SECRET_RULES):
        if rule.hints and not any(
            present.setdefault(hint, hint in lowered) if hint not in present else present[hint]
            for hint in rule.hints
        ):
            continue  # the rule cannot match: none of the strings its matches contain
        for hit in rule.findings(normalised.text, lowered):
            start, end = normalised.span(hit.start, hit.end)
            ranked.append((SecretFinding(hit.rule, start, end), rank))
    if depth < MAX_DEPTH:
        for start, end, decoded in encoded_segments(normalised.text, budget):
            # The decoded value is read with the words before it ("token: <encoded>").
            # ... and the few after it ("<password>&#110;…</password>").
            line_start = normalised.text.rfind("\n", max(0, start - 40), start) + 1
            before = normalised.text[max(line_start, start - 40) : start]
            line_end = normalised.text.find("\n", end, end + 40)
            after = normalised.text[end : end + 40 if line_end == -1 else line_end]
            inner = [
                pair
                for pair in _ranked_findings(before + decoded + after, depth + 1, budget)
                if pair[0].end > len(before) and pair[0].start < len(before) + len(decoded)
            ]
            if inner:
                start, end = normalised.span(start, end)
                finding, rank = min(inner, key=lambda pair: pair[1])
                ranked.append((SecretFinding(finding.rule, start, end), rank))
    return ranked


def redact(text: str) -> tuple[str, dict[str, int]]:
    """Replace each credential with `[REDACTED:<rule>]`. Overlapping findings merge into one
    marker named after the first; the counts add up to the number of markers."""
    spans: list[list] = []  # [rule, start, end], merged
    for finding in find_secrets(text):
        if spans and finding.start < spans[-1][2]:
            spans[-1][2] = max(spans[-1][2], finding.end)
        else:
            spans.append([finding.rule, finding.start, finding.end])
    pieces, position = [], 0
    for rule, start, end in spans:
        pieces += [text[position:start], f"[REDACTED:{rule}]"]
        position = end
    pieces.append(text[position:])
    return "".join(pieces), dict(Counter(rule for rule, _, _ in spans))


def check_no_secrets(fields: Mapping[str, str | None]) -> None:
    """Raise SECRET_REJECTED when any field holds a credential. The message and details name
    the field and the rule only: echoing any part of the secret would leak it into logs."""
    hits: list[dict[str, str]] = []
    for field, value in fields.items():
        for rule in dict.fromkeys(finding.rule for finding in find_secrets(value or "")):
            hits.append({"field": field, "rule": rule})
    if hits:
        first = hits[0]
        template = SECRET_FOUND if len(hits) == 1 else SECRETS_FOUND
        params = {"field": first["field"], "rule": first["rule"], "n": len(hits)}
        raise ServiceError(ErrorCode.SECRET_REJECTED, template, hits, params=params)


SECRET_FOUND = gettext_noop(
    "%(field)s looks like it contains a credential (rule: %(rule)s); secrets are never "
    "stored. Remove it and try again."
)
SECRETS_FOUND = gettext_noop(
    "%(field)s looks like it contains a credential (rule: %(rule)s); secrets are never "
    "stored. Remove it and try again. (%(n)s findings in total, listed in details.)"
)


def check_size(content: str | None, limit: int = MAX_CONTENT_CHARS) -> None:
    """Characters, not bytes: 4,000 Chinese characters fit as well as 4,000 Latin ones."""
    if content is None or not content.strip():
        raise validation_error(
            gettext_noop("content is empty; a memory needs a statement."), field="content"
        )
    if len(content) > limit:
        raise validation_error(
            gettext_noop(
                "content is %(n)s characters; the limit is %(limit)s. Keep one stable "
                "statement per memory and put long material elsewhere."
            ),
            field="content", n=f"{len(content):,}", limit=f"{limit:,}",
        )  # fmt: skip


# --- the one gate every write passes ----------------------------------------------------------


def field_text(value: object) -> str:
    """A stored value as the text the rules read: lists one item a line, JSON objects
    serialised (their keys too), nothing for None."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return "\n".join(field_text(item) for item in value)
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def gate_secrets(**fields: object) -> dict[str, str]:
    """SECRET_REJECTED when any stored field, whatever its shape, holds a credential.
    Returns the fields as the text that was checked."""
    texts = {name: field_text(value) for name, value in fields.items()}
    check_no_secrets(texts)
    return texts


def gate_memory(
    *,
    content: str,
    key: str | None = None,
    value: object = None,
    scope_key: str | None = None,
    tags: object = None,
    retrieval_hints: object = None,
    source_agent: str | None = None,
    reason: str | None = None,
    idempotency_key: str | None = None,
) -> dict[str, str]:
    """The gate of every memory write: the statement within size, and no credential in any
    field the write stores (the memory's own text and JSON fields, and the reason and
    idempotency key its history keeps). Returns the checked fields as text."""
    check_size(content)
    return gate_secrets(
        content=content, key=key, value=value, scope_key=scope_key, tags=tags,
        retrieval_hints=retrieval_hints, source_agent=source_agent, reason=reason,
        idempotency_key=idempotency_key,
    )  # fmt: skip
