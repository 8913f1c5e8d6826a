"""Recall's channels. Each looks for candidates its own way and returns memory ids, best
first; fusion only sees ranks, so channels need not agree on what a score means.

- key:      the query (or one of its words) is a memory's logical key
- fulltext: the memory's text shares terms with the query (or a substring, for queries
            too short to have terms)
- hints:    the memory's tags, retrieval hints or key share terms with the query
- semantic: an embedding model's nearest neighbours — the seam `register_semantic_channel`
            fills; absent until one is configured
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import QuerySet

from continuity.actors import Actor
from memories.models import Memory
from memories.retrieval import index
from memories.retrieval.analysis import query_terms
from memories.text import is_cjk

log = logging.getLogger(__name__)
CANDIDATES_PER_CHANNEL = 100
MAX_KEY_CANDIDATES = 20


@dataclass(frozen=True)
class SearchContext:
    """What every channel gets. A channel must return only ids inside `scoped` (the
    caller's owner, scopes, visibility and searchable statuses)."""

    actor: Actor
    queries: tuple[str, ...]
    scoped: QuerySet[Memory]
    scope_tokens: list[str]
    kind_tokens: list[str]
    terms: tuple[str, ...]
    frequencies: dict[str, int]  # memories holding each term, across the index


def query_context(*, actor, queries, scoped, scope_tokens, kind_tokens) -> SearchContext:
    seen: dict[str, None] = {}
    for query in queries:
        seen.update(dict.fromkeys(query_terms(query)))
    terms = tuple(seen)
    return SearchContext(
        actor=actor, queries=queries, scoped=scoped, scope_tokens=scope_tokens,
        kind_tokens=kind_tokens, terms=terms, frequencies=index.document_frequencies(terms),
    )  # fmt: skip


Channel = Callable[[SearchContext], list]


def key_channel(search: SearchContext) -> list:
    candidates: dict[str, None] = {}
    for query in search.queries:
        candidates.setdefault(query)
        for word in query.split():
            candidates.setdefault(word.strip(".,;:!?\"'`()[]{}"))
    keys = [key for key in candidates if key][:MAX_KEY_CANDIDATES]
    return list(
        search.scoped.filter(key__in=keys).order_by("-updated_at", "pk").values_list("pk", flat=True)
    )


def _text_channel(column: str) -> Channel:
    def channel(search: SearchContext) -> list:
        terms = search.terms
        if not terms:
            if column != "body":
                return []
            return index.substring_search(
                scoped=search.scoped, needle=search.queries[0], limit=CANDIDATES_PER_CHANNEL
            )
        return index.search(
            scoped=search.scoped, column=column, terms=terms, frequencies=search.frequencies,
            scope_tokens=search.scope_tokens, kind_tokens=search.kind_tokens,
            limit=CANDIDATES_PER_CHANNEL,
        )  # fmt: skip

    return channel


CHANNELS: dict[str, Channel] = {
    "key": key_channel,
    "fulltext": _text_channel("body"),
    "hints": _text_channel("aux"),
}
_semantic: Channel | None = None


def register_semantic_channel(channel: Channel | None) -> None:
    """Plug in (or remove) a semantic channel; it takes part in fusion like any other."""
    global _semantic
    _semantic = channel


def available() -> list[str]:
    return [*CHANNELS, *(["semantic"] if _semantic else [])]


def unavailable() -> list[str]:
    return [] if _semantic else ["semantic"]


def run_all(search: SearchContext) -> dict[str, list]:
    found = {name: channel(search) for name, channel in CHANNELS.items()}
    if _semantic is not None:
        try:
            found["semantic"] = _semantic(search)
        except Exception:  # a failing model must not take lexical recall down with it
            log.exception("semantic channel failed; recall continues on lexical channels")
    return {name: ids for name, ids in found.items() if ids}


class Relevance:
    """How much of a query a memory covers: the share of the query's terms found in the
    memory's text, tags and hints (prefix matches count for longer latin words).

    CJK bigrams that occur nowhere in the store are left out of the count: they are word
    boundaries (置缓 in 配置缓存), not topics. Latin words always count, so a question about
    something never written down stays unanswered.
    """

    def __init__(self, search: SearchContext):
        known = {term for term, count in search.frequencies.items() if count > 0}
        self.per_query = [
            tuple(term for term in query_terms(query) if not is_cjk(term) or term in known)
            for query in search.queries
        ]
        self.counted_terms = sorted({term for terms in self.per_query for term in terms})

    def of(self, memory: Memory) -> float:
        words = set(memory.search_body.split()) | set(memory.search_aux.split())
        best = 0.0
        for terms in self.per_query:
            if not terms:
                continue
            hits = sum(1 for term in terms if _term_in(term, words))
            best = max(best, hits / len(terms))
        return best


def _term_in(term: str, words: set[str]) -> bool:
    if term in words:
        return True
    if index.wants_prefix(term):
        return any(word.startswith(term) for word in words)
    return False


def record_access(memory_ids: list) -> None:
    """Count the reads after the transaction, in the background, so recall stays fast."""
    if not memory_ids:
        return
    from memories.tasks import record_access as task

    ids = [str(memory_id) for memory_id in memory_ids]

    def send():
        try:
            task.apply_async(args=[ids], retry=False)
        except Exception:  # access counts are best effort; recall must not fail on them
            log.warning("could not queue access counts for %d memories", len(ids), exc_info=True)

    transaction.on_commit(send)
