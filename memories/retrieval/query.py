"""Multi-step query: a compound question answered part by part, inside one time budget.

Never widens scope: every step is a recall in exactly the caller's scopes. Says how well
the evidence covers the question (`sufficiency`) and why it stopped short (`fallback`).
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import validation_error
from memories.contract import (
    QUERY_DEFAULT_MIN_EVIDENCE,
    QUERY_DEFAULT_STEPS,
    QUERY_DEFAULT_TIMEOUT_MS,
    QUERY_MAX_MIN_EVIDENCE,
    QUERY_MAX_STEPS,
    QUERY_MAX_TIMEOUT_MS,
    QUERY_MIN_TIMEOUT_MS,
)
from memories.models import Memory, MemoryLink, Relation
from memories.retrieval.analysis import query_terms
from memories.retrieval.recall import MAX_QUERY_CHARS, parse_request, rank

MAX_STEPS = QUERY_MAX_STEPS
MAX_TIMEOUT_MS = QUERY_MAX_TIMEOUT_MS
PER_STEP_RESULTS = 5
HISTORY_EXPANSION = 3  # top results per step whose history and links are added
# Conjunctions a compound question splits on, in English and Chinese.
SPLIT_PATTERN = re.compile(
    r"\s*(?:[;；?？]|,?\s+and\s+also\s+|,?\s+and\s+then\s+|,?\s+and\s+|,?\s+as\s+well\s+as\s+|"
    r"\s+also\s+|以及|并且|而且|还有|另外|和|与|，|、)\s*",
    re.IGNORECASE,
)


@dataclass
class MultiQueryResult:
    steps: list[dict]
    evidence: list[dict]
    sufficiency: str  # sufficient | partial | insufficient
    fallback: list[str]

    def as_dict(self) -> dict:
        return asdict(self)


def split_query(query: str) -> list[str]:
    """Parts of a compound question that each still say something (two or more terms,
    or one CJK word); a query that does not split is its own single part."""
    parts = [part.strip() for part in SPLIT_PATTERN.split(query) if part and part.strip()]
    meaningful = [part for part in parts if len(query_terms(part)) >= 1]
    return meaningful if len(meaningful) > 1 else [query.strip()]


def _bounded_int(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise validation_error(
            gettext_noop("%(name)s must be between %(low)s and %(high)s."),
            field=name, name=name, low=low, high=high,
        )  # fmt: skip
    return value


def multi_query(
    *,
    actor: Actor,
    query: str,
    subqueries: list[str] | None = None,
    project_key: str | None = None,
    task_id: str | None = None,
    include_history: bool = False,
    max_steps: int = QUERY_DEFAULT_STEPS,
    timeout_ms: int = QUERY_DEFAULT_TIMEOUT_MS,
    min_evidence: int = QUERY_DEFAULT_MIN_EVIDENCE,
) -> MultiQueryResult:
    max_steps = _bounded_int(max_steps, "max_steps", 1, MAX_STEPS)
    timeout_ms = _bounded_int(timeout_ms, "timeout_ms", QUERY_MIN_TIMEOUT_MS, MAX_TIMEOUT_MS)
    min_evidence = _bounded_int(min_evidence, "min_evidence", 1, QUERY_MAX_MIN_EVIDENCE)
    if subqueries is not None and (
        not isinstance(subqueries, list)
        or not subqueries
        or any(
            not isinstance(part, str) or not part.strip() or len(part) > MAX_QUERY_CHARS
            for part in subqueries
        )
    ):
        raise validation_error(
            gettext_noop("subqueries must be a non-empty list of non-empty strings."),
            field="subqueries",
        )
    parse_request(actor, query, None, project_key, task_id, None)  # validates query and scope
    parts = subqueries or split_query(query)

    deadline = time.monotonic() + timeout_ms / 1000
    fallback: list[str] = []
    if len(parts) > max_steps:
        fallback.append(f"question has {len(parts)} parts; answered the first {max_steps}")
        parts = parts[:max_steps]
    steps, evidence = [], {}
    for number, part in enumerate(parts, start=1):
        if time.monotonic() >= deadline:
            fallback.append(f"time budget of {timeout_ms} ms spent after {number - 1} step(s)")
            break
        ranking = rank(actor, parse_request(actor, part, None, project_key, task_id, None))
        top = ranking.ranked[:PER_STEP_RESULTS]
        confident = [item for item in top if not ranking.no_confident_match]
        steps.append(
            {"query": part, "memory_ids": [item.id for item in top],
             "no_confident_match": ranking.no_confident_match}
        )  # fmt: skip
        if ranking.no_confident_match:
            fallback.append(f"no confident match for: {part}")
        for item in confident:
            evidence.setdefault(item.id, {**item.as_dict(), "found_by": [], "via": "recall"})
            evidence[item.id]["found_by"].append(number)
        if include_history:
            _expand_history(
                actor, [item.memory for item in confident[:HISTORY_EXPANSION]], evidence, number
            )

    answered = sum(1 for step in steps if not step["no_confident_match"])
    if answered == len(parts) and len(evidence) >= min_evidence:
        sufficiency = "sufficient"
    elif answered:
        sufficiency = "partial"
        if len(evidence) < min_evidence:
            fallback.append(f"found {len(evidence)} piece(s) of evidence; {min_evidence} wanted")
    else:
        sufficiency = "insufficient"
    return MultiQueryResult(steps, list(evidence.values()), sufficiency, fallback)


def _expand_history(actor: Actor, memories: list[Memory], evidence: dict, step: int) -> None:
    """Earlier versions of the top memories, and memories they link to as support or
    source — same owner, same visibility rules (the links never lead out of scope)."""
    from memories.selectors import memories_visible_to

    related_ids = set()
    for memory in memories:
        if memory.supersedes_id:
            related_ids.add(memory.supersedes_id)
        related_ids.update(
            MemoryLink.objects.filter(
                from_memory=memory,
                relation__in=[Relation.SUPPORTS, Relation.DERIVED_FROM],
                to_memory__isnull=False,
            ).values_list("to_memory_id", flat=True)
        )
    allowed_scopes = {(memory.scope_type, memory.scope_key) for memory in memories} | {
        ("global", "")
    }
    for related in memories_visible_to(actor).filter(pk__in=related_ids).order_by("pk"):
        if (related.scope_type, related.scope_key) not in allowed_scopes or str(
            related.pk
        ) in evidence:
            continue
        evidence[str(related.pk)] = {
            "id": str(related.pk), "content": related.content, "kind": related.kind,
            "trust": related.trust, "status": related.status, "scope_type": related.scope_type,
            "scope_key": related.scope_key, "found_by": [step], "via": "history",
        }  # fmt: skip
