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

import bisect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from django.db.models import QuerySet

from foundation.actors import Actor
from memories.models import Memory
from memories.retrieval import index
from memories.retrieval.analysis import named_terms
from memories.retrieval.concepts import Unit, query_units, single_term
from memories.text import is_cjk

log = logging.getLogger(__name__)
# How deep each channel looks by default; recall asks for less when its page is small.
CANDIDATES_PER_CHANNEL = 100
MAX_KEY_CANDIDATES = 20
# What recall's scope rule (`admits`) reads from a row: enough to load for a check.
IN_SCOPE_FIELDS = ("id", "owner_id", "visibility", "scope_type", "scope_key", "status", "kind")


@dataclass(frozen=True)
class SearchContext:
    """What every channel gets. A channel must return only ids inside `scoped` (the
    caller's owner, scopes, visibility and searchable statuses); `admits` is the same rule
    for a row already in hand."""

    actor: Actor
    queries: tuple[str, ...]
    scope_query: Callable[[], QuerySet[Memory]]
    admits: Callable[[Memory], bool]
    scope_tokens: list[str]
    kind_tokens: list[str]
    kinds: tuple[str, ...]
    units: tuple[Unit, ...]  # terms and concepts of all the query's phrasings
    depth: int  # candidates each channel returns at most
    # Memories holding each term, across the index (and the words a prefix term begins):
    # filled by run_all while the semantic model embeds the query.
    terms: tuple[str, ...] = ()
    frequencies: dict[str, int] = field(default_factory=dict)
    completions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The caller's readable (scope type, scope key, visibility) triples (the semantic
    # channel's blocks, PostgreSQL's per-scope branches); what the semantic channel leaves
    # behind: each returned memory's similarity calibrated to a relevance (0-1, comparable
    # with lexical coverage), and why it could not take part, if it could not.
    scopes: tuple[tuple[str, str, str], ...] = ()
    semantic_relevance: dict = field(default_factory=dict)
    degraded: list[str] = field(default_factory=list)
    # Candidates' rows already loaded (and admitted): fusion reads them from here.
    rows: dict = field(default_factory=dict)

    def load(self, memory_ids) -> set:
        """Load the rows of these ids not loaded yet, by primary key alone (with the scope
        conditions in the same query the planner may walk the scope index instead), keep
        those the scope rule admits; returns the admitted ids among them."""
        missing = [
            memory_id for memory_id in dict.fromkeys(memory_ids) if memory_id not in self.rows
        ]
        if missing:
            for memory in Memory.objects.filter(pk__in=missing).order_by():
                if self.admits(memory):
                    self.rows[memory.pk] = memory
        return {memory_id for memory_id in memory_ids if memory_id in self.rows}

    @cached_property
    def scoped(self) -> QuerySet[Memory]:
        """Built on first use: most searches on SQLite never need it."""
        return self.scope_query()


def query_context(
    *, actor, queries, scope_query, admits, scope_tokens, kind_tokens, kinds, depth, scopes=()
) -> SearchContext:
    units: dict[Unit, None] = {}
    for query in queries:
        units.update(dict.fromkeys(query_units(query)))
    # Relevance also asks whether the query's names (Kafka, SLA) occur anywhere.
    terms = {term for unit in units for alternative in unit for term in alternative}
    terms |= {term for query in queries for term in named_terms(query)}
    return SearchContext(
        actor=actor, queries=queries, scope_query=scope_query, admits=admits, scope_tokens=scope_tokens,
        kind_tokens=kind_tokens, kinds=tuple(kinds), units=tuple(units), depth=depth, scopes=tuple(scopes),
        terms=tuple(sorted(terms)),
    )  # fmt: skip


Channel = Callable[[SearchContext], list]


def key_channel(search: SearchContext) -> list:
    candidates: dict[str, None] = {}
    for query in search.queries:
        candidates.setdefault(query)
        for word in query.split():
            candidates.setdefault(word.strip(".,;:!?\"'`()[]{}"))
    keys = [key for key in candidates if key][:MAX_KEY_CANDIDATES]
    # The owner's memories with those keys (few: a key's versions, in a few scopes), then
    # the scope rule in hand.
    rows = (
        Memory.objects.filter(owner_id=search.actor.user.pk, key__in=keys)
        .order_by("-updated_at", "pk")
        .only(*IN_SCOPE_FIELDS)
    )
    return [row.pk for row in rows if search.admits(row)]


def _text_channel(column: str) -> Channel:
    def channel(search: SearchContext) -> list:
        if not search.units:
            if column != "body":
                return []
            return index.substring_search(
                scoped=search.scoped, needle=search.queries[0], limit=search.depth
            )
        return index.search(
            column=column, units=search.units, frequencies=search.frequencies,
            limit=search.depth, completions=search.completions,
            readable=index.Readable(
                search.actor.user.pk, search.scopes, search.kinds,
                tuple(search.scope_tokens), tuple(search.kind_tokens),
            ),
        )  # fmt: skip

    return channel


CHANNELS: dict[str, Channel] = {
    "key": key_channel,
    "fulltext": _text_channel("body"),
    "hints": _text_channel("aux"),
}
_semantic: Channel | None = None


def register_semantic_channel(channel: Channel | None) -> None:
    """Plug in (or remove) a semantic channel; it takes part in fusion like any other.
    A channel with a `start(search)` method is started before the lexical channels and
    finished (the callable `start` returned) after them, so its model can run meanwhile."""
    global _semantic
    _semantic = channel


def available() -> list[str]:
    return [*CHANNELS, *(["semantic"] if _semantic else [])]


def unavailable() -> list[str]:
    return [] if _semantic else ["semantic"]


def run_all(search: SearchContext, *, with_semantic: bool = True) -> dict[str, list]:
    semantic, finish = (_semantic if with_semantic else None), None
    if semantic is not None and hasattr(semantic, "start"):
        try:
            finish = semantic.start(search)
        except Exception:  # a failing model must not take lexical recall down with it
            log.exception("semantic channel failed; recall continues on lexical channels")
            search.degraded.append("semantic: channel failed")
            semantic = None
    known = index.vocabulary(search.terms)
    search.frequencies.update(known.frequencies)
    search.completions.update(known.completions)
    found = {name: channel(search) for name, channel in CHANNELS.items()}
    if semantic is not None:
        # Fusion's rows for the lexical candidates, loaded while the model still embeds.
        search.load([memory_id for ids in found.values() for memory_id in ids])
        try:
            found["semantic"] = finish() if finish is not None else semantic(search)
        except Exception:  # a failing model must not take lexical recall down with it
            log.exception("semantic channel failed; recall continues on lexical channels")
            search.degraded.append("semantic: channel failed")
    return {name: ids for name, ids in found.items() if ids}


class Relevance:
    """How much of a query a memory covers: the share of the query's units (concepts and
    single terms) found in the memory's text, tags and hints — a concept counts when any
    of its phrasings is there, a longer latin word also by prefix.

    CJK bigrams that occur nowhere in the store are either word boundaries (存过 in
    缓存过期) or unknown words (训练 in 训练集). A lone one between known words is a
    boundary and is left out; a run of two or more is an unknown word and counts as one
    unit that nothing matches. Latin words always count, so a question about something
    never written down stays unanswered.
    """

    def __init__(self, search: SearchContext):
        self.per_query = []
        for query in search.queries:
            units: list[Unit] = []
            unknown_run: list[str] = []
            for unit in (*query_units(query), None):
                term = single_term(unit) if unit else None
                if term is not None and is_cjk(term) and search.frequencies.get(term, 0) == 0:
                    unknown_run.append(term)
                    continue
                if len(unknown_run) >= 2:
                    units.append((tuple(unknown_run),))
                unknown_run = []
                if unit is not None:
                    units.append(unit)
            self.per_query.append(units)
        # Names (Kafka, SLA, Storybook) no memory has ever used, unless a concept of the
        # query covers them with a known phrasing.
        known_concept_terms = {
            term
            for units in self.per_query
            for unit in units
            if single_term(unit) is None and index.unit_frequency(unit, search.frequencies) > 0
            for alternative in unit
            for term in alternative
        }
        self.unknown_names = sorted(
            {
                term
                for query in search.queries
                for term in named_terms(query)
                if term not in known_concept_terms and not _known(term, search.frequencies)
            }
        )
        self.counted_terms = sorted(
            {
                " / ".join(" ".join(alt) for alt in unit)
                for units in self.per_query
                for unit in units
            }
        )

    def of(self, memory: Memory) -> float:
        words = Words(memory)
        best = 0.0
        for units in self.per_query:
            if units:
                hits = sum(1 for unit in units if _unit_in(unit, words))
                best = max(best, hits / len(units))
        return best


def _known(term: str, frequencies: dict[str, int]) -> bool:
    if term in frequencies:
        return frequencies[term] > 0
    return index.document_frequencies([term])[term] > 0


def _unit_in(unit: Unit, words: Words) -> bool:
    return any(all(_term_in(term, words) for term in alternative) for alternative in unit)


def _term_in(term: str, words: Words) -> bool:
    if term in words.exact:
        return True
    if index.wants_prefix(term):
        position = bisect.bisect_left(words.ordered, term)
        return position < len(words.ordered) and words.ordered[position].startswith(term)
    return False


class Words:
    """A memory's terms, for exact and prefix lookups."""

    def __init__(self, memory: Memory):
        self.exact = set(memory.search_body.split()) | set(memory.search_aux.split())
        self.ordered = sorted(self.exact)
