"""Hybrid recall: channels → reciprocal rank fusion → boosts → abstention → a page.

Deterministic for a given store and request: ties break on id, and recency is measured
against the newest candidate rather than the clock, so the same question over the same
memories yields the same ranking (which context packs rely on for byte-stable output).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

from django.db.models import Q, QuerySet
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import LIMIT_RANGE, forbidden, validation_error
from foundation.messages import known
from foundation.paging import INVALID as INVALID_CURSOR
from foundation.paging import cursor_decode, cursor_encode
from memories.access import access_log
from memories.contract import MAX_ALT_QUERIES, MAX_QUERY_CHARS
from memories.contract import RECALL_DEFAULT_LIMIT as DEFAULT_LIMIT
from memories.contract import RECALL_MAX_LIMIT as MAX_LIMIT
from memories.models import SEARCHABLE_STATUSES, Kind, Memory, ScopeType, Status, Trust, Visibility
from memories.retrieval import channels
from memories.retrieval.analysis import kind_token, scope_token
from memories.selectors import conflicts_among, is_visible_to, memories_visible_to
from memories.services.validation import MAX_SCOPE_KEY_CHARS, label

RRF_K = 60
MIN_DEPTH = 20  # candidates per channel for pages of 10 or fewer
# Recall answers "nothing I know is confidently about this" when the best candidate
# covers less than a third of the query's units. Calibrated on bench/retrieval_eval.py:
# a third is where lexical coverage stops separating answerable questions from
# unanswerable ones (floor 0.30: abstention 0.75, false abstention 0.02; floor 0.34:
# 0.94 and 0.14); it errs toward answering, because recall still labels and returns
# results and context packs leave weak matches out.
CONFIDENCE_FLOOR = 0.3
TRUST_BOOST = {Trust.INFERRED: 0.0, Trust.OBSERVED: 0.05, Trust.CONFIRMED: 0.15, Trust.LOCKED: 0.2}
RECENCY_BOOST = 0.1
RECENCY_HALF_LIFE_DAYS = 30
SCOPE_BOOST = 0.1  # a project, task or agent memory is more specific than a global one
SUPERSEDED_FACTOR = 0.5


@dataclass(frozen=True)
class RecallRequest:
    queries: tuple[str, ...]  # the query, then its alternative phrasings
    project_key: str | None
    task_id: str | None
    kinds: tuple[str, ...]

    def digest(self, actor: Actor) -> str:
        payload = [
            self.queries,
            self.project_key,
            self.task_id,
            self.kinds,
            actor.idempotency_namespace,
        ]
        return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:32]


@dataclass
class RankedMemory:
    memory: Memory
    channels: dict[str, int] = field(default_factory=dict)  # channel → 1-based rank
    score: float = 0.0
    relevance: float = 0.0  # share of query terms present (1.0 for an exact key)
    # Live memories the caller may read that this one contradicts (or is contradicted by):
    # an agent is told, never handed two incompatible rules as equally true.
    conflicts_with: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        memory = self.memory
        return {
            "id": str(memory.pk),
            "content": memory.content,
            "kind": memory.kind,
            "type": memory.type,
            "trust": memory.trust,
            "status": memory.status,
            "scope_type": memory.scope_type,
            "scope_key": memory.scope_key,
            "key": memory.key,
            "version": memory.version,
            "tags": memory.tags,
            "source_agent": memory.source_agent,
            "updated_at": memory.updated_at.isoformat(),
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 3),
            "channels": dict(sorted(self.channels.items())),
            "conflicts_with": self.conflicts_with,
        }

    # Convenience for callers that treat results like memories.
    def __getattr__(self, name):
        return getattr(self.memory, name)

    @property
    def id(self) -> str:
        return str(self.memory.pk)


@dataclass
class Ranking:
    """Every candidate, ranked, with what the channels found."""

    ranked: list[RankedMemory]
    no_confident_match: bool
    receipt: dict


@dataclass
class RecallResult:
    memories: list[RankedMemory]
    no_confident_match: bool
    next_cursor: str | None
    retrieval: dict

    def as_dict(self) -> dict:
        return {
            "memories": [item.as_dict() for item in self.memories],
            "no_confident_match": self.no_confident_match,
            "next_cursor": self.next_cursor,
            "retrieval": self.retrieval,
        }


# Kept on the refused token for its owner (accounts.refusals).
PROJECT_READ = known(gettext_noop("This token is not allowed to read project '%(project)s'."))


def parse_scope(actor: Actor, project_key, task_id) -> tuple[str | None, str | None]:
    """Validate the scope arguments of a read and check the token may read that project."""
    actor.require_scope("memories:read")
    project_key = label(project_key, "project_key", MAX_SCOPE_KEY_CHARS, required=False)
    task_id = label(task_id, "task_id", MAX_SCOPE_KEY_CHARS, required=False)
    if project_key and not actor.may_touch_project(project_key):
        raise forbidden(PROJECT_READ, project=project_key)
    return project_key, task_id


def parse_request(actor: Actor, query, alt_queries, project_key, task_id, kinds) -> RecallRequest:
    project_key, task_id = parse_scope(actor, project_key, task_id)
    queries = []
    for index, text in enumerate([query, *(alt_queries or [])]):
        name = "query" if index == 0 else "alt_queries"
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_QUERY_CHARS:
            raise validation_error(
                gettext_noop("%(name)s must be 1-%(limit)s characters."),
                field=name, name=name, limit=MAX_QUERY_CHARS,
            )  # fmt: skip
        queries.append(" ".join(text.split()))
    if alt_queries is not None and (
        not isinstance(alt_queries, list) or len(alt_queries) > MAX_ALT_QUERIES
    ):
        raise validation_error(
            gettext_noop("alt_queries holds at most %(limit)s strings."),
            field="alt_queries",
            limit=MAX_ALT_QUERIES,
        )
    kinds = kinds or []
    if not isinstance(kinds, list) or any(kind not in Kind.values for kind in kinds):
        raise validation_error(
            gettext_noop("kinds must be a list of: %(choices)s."),
            field="kinds", choices=", ".join(Kind.values),
        )  # fmt: skip
    return RecallRequest(tuple(queries), project_key, task_id, tuple(sorted(set(kinds))))


def scopes_for(actor: Actor, request: RecallRequest) -> list[tuple[str, str]]:
    """Global, plus the given project and task, plus the calling agent's own notes."""
    scopes = [(ScopeType.GLOBAL, "")]
    if request.project_key:
        scopes.append((ScopeType.PROJECT, request.project_key))
    if request.task_id:
        scopes.append((ScopeType.TASK, request.task_id))
    if actor.is_agent:
        scopes.append((ScopeType.AGENT, actor.agent_name))
    return scopes


def scoped_memories(actor: Actor, request: RecallRequest) -> QuerySet[Memory]:
    in_scope = Q()
    for scope_type, scope_key in scopes_for(actor, request):
        in_scope |= Q(scope_type=scope_type, scope_key=scope_key)
    queryset = memories_visible_to(actor).filter(in_scope, status__in=SEARCHABLE_STATUSES)
    if request.kinds:
        queryset = queryset.filter(kind__in=request.kinds)
    return queryset


def in_scope(actor: Actor, request: RecallRequest, memory: Memory) -> bool:
    """scoped_memories' rule for a row already in hand."""
    return (
        is_visible_to(actor, memory)
        and memory.status in SEARCHABLE_STATUSES
        and (memory.scope_type, memory.scope_key) in scopes_for(actor, request)
        and (not request.kinds or memory.kind in request.kinds)
    )


def rank(
    actor: Actor,
    request: RecallRequest,
    depth: int = channels.CANDIDATES_PER_CHANNEL,
    *,
    with_semantic: bool = True,
) -> Ranking:
    """Every candidate in scope, ranked. `with_semantic=False` leaves the semantic channel
    out, for callers on a tight time budget (a prompt waits for injection)."""
    visibilities = (
        [Visibility.SHARED, Visibility.PRIVATE] if actor.can_read_private else [Visibility.SHARED]
    )
    search = channels.query_context(
        depth=depth,
        actor=actor,
        queries=request.queries,
        scope_query=lambda: scoped_memories(actor, request),
        admits=lambda memory: in_scope(actor, request, memory),
        scope_tokens=[
            scope_token(actor.user.pk, scope_type, scope_key, visibility)
            for scope_type, scope_key in scopes_for(actor, request)
            for visibility in visibilities
        ],
        kind_tokens=[kind_token(kind) for kind in request.kinds],
        kinds=request.kinds,
        scopes=[
            (scope_type, scope_key, visibility)
            for scope_type, scope_key in scopes_for(actor, request)
            for visibility in visibilities
        ],
    )
    found = channels.run_all(search, with_semantic=with_semantic)

    fused: dict = {}
    for channel_name, ids in found.items():
        for position, memory_id in enumerate(ids, start=1):
            entry = fused.setdefault(memory_id, {})
            entry[channel_name] = position
    # Channels return only scoped ids; the rows are loaded by primary key and the scope is
    # checked again on them in hand (some were loaded while the semantic model worked).
    search.load(list(fused))
    rows = search.rows
    ranked = [RankedMemory(rows[pk], channels=hits) for pk, hits in fused.items() if pk in rows]
    relevance = channels.Relevance(search)
    for item in ranked:
        item.relevance = 1.0 if "key" in item.channels else relevance.of(item.memory)
        # A close semantic match answers a question in other words or another language.
        item.relevance = max(item.relevance, search.semantic_relevance.get(item.memory.pk, 0.0))
    ranked += _stand_in_successors(lambda memory: in_scope(actor, request, memory), ranked)

    newest = max((item.memory.updated_at for item in ranked), default=None)
    for item in ranked:
        memory = item.memory
        rrf = sum(1.0 / (RRF_K + position) for position in item.channels.values())
        age_days = (newest - memory.updated_at).total_seconds() / 86400
        boost = (
            TRUST_BOOST[memory.trust]
            + RECENCY_BOOST * math.exp(-age_days * math.log(2) / RECENCY_HALF_LIFE_DAYS)
            + (SCOPE_BOOST if memory.scope_type != ScopeType.GLOBAL else 0.0)
        )
        item.score = rrf * (1 + boost) * (1 + item.relevance)
        if memory.status == Status.SUPERSEDED:
            item.score *= SUPERSEDED_FACTOR
    ranked.sort(key=lambda item: (-item.score, str(item.memory.pk)))
    ranked = _successors_first(ranked)

    best = max((item.relevance for item in ranked), default=0.0)
    exact_key = any("key" in item.channels for item in ranked)
    confident = exact_key or (best >= CONFIDENCE_FLOOR and not relevance.unknown_names)
    receipt = {
        "channels": sorted(name for name, ids in found.items()),
        "channels_unavailable": channels.unavailable(),
        "degraded": list(search.degraded),
        "candidates": {name: len(ids) for name, ids in sorted(found.items())}
        | {"fused": len(ranked)},
        "query_terms": relevance.counted_terms,
        "best_relevance": round(best, 3),
        "unknown_names": relevance.unknown_names,
        "confidence_floor": CONFIDENCE_FLOOR,
        "scopes": [
            f"{scope_type}:{key}" if key else str(scope_type)
            for scope_type, key in scopes_for(actor, request)
        ],
    }
    return Ranking(ranked=ranked, no_confident_match=not confident, receipt=receipt)


def _stand_in_successors(admits, ranked: list[RankedMemory]) -> list[RankedMemory]:
    """When an earlier version matched but its newer version did not, bring the newer one
    in (following the chain a few steps), so an outdated statement never comes back alone.
    It takes the old version's best rank (as the `successor` channel) and relevance."""
    present = {item.memory.pk for item in ranked}
    waiting = {item.memory.pk: item for item in ranked if item.memory.status == Status.SUPERSEDED}
    added: list[RankedMemory] = []
    for _ in range(3):
        if not waiting:
            break
        # Looked up by the supersedes index alone, then checked in hand: a combined filter
        # (or the model's default ordering, once SQLite has statistics) lets the planner
        # walk the owner's whole store instead.
        successors = sorted(
            (
                memory
                for memory in Memory.objects.filter(supersedes_id__in=list(waiting)).order_by()
                if memory.pk not in present and admits(memory)
            ),
            key=lambda memory: str(memory.pk),
        )
        next_waiting = {}
        for memory in successors:
            predecessor = waiting[memory.supersedes_id]
            stand_in = RankedMemory(
                memory,
                channels={"successor": min(predecessor.channels.values())},
                relevance=predecessor.relevance,
            )
            added.append(stand_in)
            present.add(memory.pk)
            if memory.status == Status.SUPERSEDED:
                next_waiting[memory.pk] = stand_in
        waiting = next_waiting
    return added


def _successors_first(ranked: list[RankedMemory]) -> list[RankedMemory]:
    """A superseded memory never ranks above a successor that is also in the results:
    it moves to just after it (repeated, so whole version chains end up newest first)."""
    order = list(ranked)
    successor = {
        item.memory.supersedes_id: item for item in ranked if item.memory.supersedes_id is not None
    }
    for _ in range(len(order)):
        moved = False
        for item in list(order):
            newer = successor.get(item.memory.pk)
            if newer is not None and order.index(item) < order.index(newer):
                order.remove(item)
                order.insert(order.index(newer) + 1, item)
                moved = True
        if not moved:
            break
    return order


def _read_cursor(cursor: str, digest: str) -> tuple[int, int]:
    """(offset, depth) of a cursor this query, caller and scope issued."""
    data = cursor_decode(cursor, query=digest)
    try:
        offset, depth = int(data["o"]), int(data["d"])
    except (KeyError, TypeError, ValueError):
        raise validation_error(INVALID_CURSOR, field="cursor") from None
    if offset < 0 or not 1 <= depth <= channels.CANDIDATES_PER_CHANNEL:
        raise validation_error(INVALID_CURSOR, field="cursor")
    return offset, depth


def recall(
    *,
    actor: Actor,
    query: str,
    alt_queries: list[str] | None = None,
    project_key: str | None = None,
    task_id: str | None = None,
    kinds: list[str] | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> RecallResult:
    """Find the memories that answer `query` in the caller's scopes, best first.

    Read-only apart from access counts, which a background task updates after the fact.
    `no_confident_match` is true when even the best result shares too little with the
    query; results are still returned, labelled so.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise validation_error(LIMIT_RANGE, field="limit", limit=MAX_LIMIT)
    request = parse_request(actor, query, alt_queries, project_key, task_id, kinds)
    digest = request.digest(actor)
    if cursor:
        offset, depth = _read_cursor(cursor, digest)
    else:
        # A small page needs fewer candidates; the depth then stays fixed for the whole
        # paging (it rides in the cursor), so later pages continue the same ranking.
        offset, depth = 0, min(channels.CANDIDATES_PER_CHANNEL, max(MIN_DEPTH, 2 * limit))
    ranking = rank(actor, request, depth)
    page = ranking.ranked[offset : offset + limit]
    more = offset + limit < len(ranking.ranked)
    next_cursor = cursor_encode({"o": offset + limit, "d": depth}, query=digest) if more else None
    conflicts = conflicts_among(actor, [item.memory.pk for item in page])
    for item in page:
        item.conflicts_with = conflicts.get(item.memory.pk, [])
    access_log.add(item.memory.pk for item in page)
    return RecallResult(page, ranking.no_confident_match, next_cursor, ranking.receipt)
