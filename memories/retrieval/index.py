"""The two backends' full-text indexes behind one small interface.

Both index the same pre-analysed terms (memories.retrieval.analysis), so a query matches
the same memories on SQLite and PostgreSQL; only the ranking function differs (bm25 vs
ts_rank), and recall uses ranks, not raw scores.

Ranking every memory that contains a common term costs time in proportion to the store,
so a search first asks for memories holding all of the query's known terms, and only
widens to any-term matching over the more selective terms when that finds too few.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import QuerySet

from memories.models import SEARCHABLE_STATUSES, Memory
from memories.retrieval.concepts import Unit

# Stored generated tsvector columns with GIN indexes (migration 0004), PostgreSQL only: the
# model does not declare them, so only raw SQL here names them.
PG_VECTORS = {"body": "search_body_vector", "aux": "search_aux_vector"}
PG_INDEXES = ("memories_search_body_gin", "memories_search_aux_gin")
PREFIX_MIN_CHARS = 4  # latin terms this long also match longer words: postgres → postgresql
# A term in more memories than this is too common to rank by alone.
COMMON_TERM_DOCS = 2000
MIN_SELECTIVE_TERMS = 2
MAX_COMPOUND_SELECT = 250  # SQLite refuses UNION chains of more than 500 branches
MAX_SPELLED_OUT = 8  # a prefix beginning more words than this stays a prefix query


def wants_prefix(term: str) -> bool:
    return term.isascii() and term.isalpha() and len(term) >= PREFIX_MIN_CHARS


def _fts5_term(term: str, completions: dict[str, tuple[str, ...]]) -> str:
    if term in completions:
        # The words the prefix stands for, spelled out: FTS5 reads an OR of terms lazily,
        # but builds a prefix's whole merged doclist before it can stop at a LIMIT.
        return "(" + " OR ".join(_fts5_quoted(word) for word in completions[term]) + ")"
    return _fts5_quoted(term) + "*" if wants_prefix(term) else _fts5_quoted(term)


def _prefix_end(term: str) -> str:
    """The first string after every word `term` begins: the upper bound of its range."""
    return term[:-1] + chr(ord(term[-1]) + 1)


def _fts5_quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _ts_term(term: str, completions: dict[str, tuple[str, ...]] | None = None) -> str:
    if completions and term in completions:
        return "(" + " | ".join(_ts_quoted(word) for word in completions[term]) + ")"
    return _ts_quoted(term) + ":*" if wants_prefix(term) else _ts_quoted(term)


def _ts_quoted(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass(frozen=True)
class Vocabulary:
    """What the index knows of a query's terms: how many memories hold each (prefix terms:
    their longer words too), and for a prefix term that begins few words, those words."""

    frequencies: dict[str, int]
    completions: dict[str, tuple[str, ...]] = field(default_factory=dict)


def vocabulary(terms) -> Vocabulary:
    """Statistics for choosing terms, across all owners, never returned to callers."""
    terms = list(dict.fromkeys(terms))
    if not terms:
        return Vocabulary({})
    if connection.vendor == "sqlite":
        return _fts5_vocabulary(terms)
    return Vocabulary(_postgres_frequencies(terms), _postgres_completions(terms))


def document_frequencies(terms) -> dict[str, int]:
    return vocabulary(terms).frequencies


def _fts5_vocabulary(terms: list[str]) -> Vocabulary:
    """From the index's own vocabulary table (always current), one branch per term, in one
    round trip per (SQLite-bounded) compound query."""
    found = Vocabulary({})
    for start in range(0, len(terms), MAX_COMPOUND_SELECT):
        part = terms[start : start + MAX_COMPOUND_SELECT]
        branches, params = [], []
        for position, term in enumerate(part):
            if wants_prefix(term):
                branches.append(
                    "SELECT %s, coalesce(sum(doc), 0), CASE WHEN count(*) <= %s THEN group_concat(term, ' ') END "
                    "FROM memories_search_vocab WHERE term >= %s AND term < %s"
                )
                params += [position, MAX_SPELLED_OUT, term, _prefix_end(term)]
            else:
                branches.append(
                    "SELECT %s, coalesce(sum(doc), 0), NULL FROM memories_search_vocab WHERE term = %s"
                )
                params += [position, term]
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(branches), params)
            for position, count, words in cursor.fetchall():
                found.frequencies[part[position]] = count
                if words:
                    found.completions[part[position]] = tuple(sorted(words.split(" ")))
    return found


def _postgres_frequencies(terms: list[str]) -> dict[str, int]:
    """Common terms from the planner's statistics (most common elements of the vectors,
    times the table's row estimate); every other term costs one index probe, together in
    one query, and counts as rare (1) when present. Counting matches instead would cost
    time in proportion to how common a term is."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples "
            "FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename "
            "WHERE s.tablename = 'memories_memory' AND s.schemaname = current_schema() "
            "AND s.attname IN ('search_body_vector', 'search_aux_vector')"
        )
        common: dict[str, float] = {}
        for elements, freqs, rows in cursor.fetchall():
            for element, freq in zip(elements or [], freqs or []):
                common[element] = max(common.get(element, 0.0), freq * max(rows, 0))
        counts: dict[str, int] = {}
        for term in terms:
            if wants_prefix(term):
                estimate = sum(rows for element, rows in common.items() if element.startswith(term))
            else:
                estimate = common.get(term, 0.0)
            if estimate >= 1:
                counts[term] = round(estimate)
        # Every phrasing of a concept too: counted as present without a look, an absent one
        # made its concept "known" and rare, and the query then matched nothing at all.
        probe = [term for term in terms if term not in counts]
        if probe:
            # One branch per term, each with its query as a constant and no LIMIT (with
            # one, the planner bets on a sequential scan finding a row early, which for an
            # absent term reads the whole table): every probe is a GIN bitmap lookup of a
            # term known not to be common. All in one round trip.
            branch = (
                "SELECT %s WHERE (SELECT count(*) FROM memories_memory "
                f"WHERE {PG_VECTORS['body']} @@ %s::tsquery OR {PG_VECTORS['aux']} @@ %s::tsquery) > 0"
            )
            params = []
            for index, term in enumerate(probe):
                params += [index, _ts_term(term), _ts_term(term)]
            cursor.execute(" UNION ALL ".join([branch] * len(probe)), params)
            present = {probe[row[0]] for row in cursor.fetchall()}
            counts.update({term: 1 if term in present else 0 for term in probe})
    return counts


def _postgres_completions(terms: list[str]) -> dict[str, tuple[str, ...]]:
    """The words of the term dictionary (migration 0007) each prefix term begins, when
    there are few; one round trip."""
    prefixes = [term for term in terms if wants_prefix(term)]
    if not prefixes:
        return {}
    branch = (
        "SELECT %s, array_agg(term) FROM (SELECT term FROM memories_search_term "
        "WHERE term >= %s AND term < %s ORDER BY term LIMIT %s) AS words"
    )
    params = []
    for position, term in enumerate(prefixes):
        params += [position, term, _prefix_end(term), MAX_SPELLED_OUT + 1]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join([branch] * len(prefixes)), params)
        return {
            prefixes[position]: tuple(words)
            for position, words in cursor.fetchall()
            if words and len(words) <= MAX_SPELLED_OUT
        }


def note_words(memories) -> None:
    """Add the memories' words to PostgreSQL's term dictionary once the current transaction
    commits (its own short statement, words in order, so concurrent writers never wait on
    each other's transactions). A no-op on SQLite, whose index keeps its own vocabulary."""
    if connection.vendor != "postgresql":
        return
    words = sorted(
        {
            word
            for memory in memories
            for word in f"{memory.search_body} {memory.search_aux}".split()
        }
    )
    if not words:
        return

    def insert():
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO memories_search_term (term) SELECT unnest(%s::text[]) ON CONFLICT DO NOTHING",
                [words],
            )

    transaction.on_commit(insert)


def refresh_words() -> None:
    """Every word of every memory into the dictionary (PostgreSQL): catches bulk writers."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memories_search_term (term) SELECT DISTINCT word FROM memories_memory, "
            "unnest(string_to_array(search_body || ' ' || search_aux, ' ')) AS word "
            "WHERE word <> '' ON CONFLICT DO NOTHING"
        )


def unit_frequency(unit: Unit, frequencies: dict[str, int]) -> int:
    """Roughly how many memories a unit matches: each phrasing by its rarest term."""
    return sum(min(frequencies.get(term, 0) for term in alternative) for alternative in unit)


@dataclass(frozen=True)
class Readable:
    """What a search may return, in each backend's terms: the owner's memories in these
    (scope type, scope key, visibility) triples, of these kinds (any when empty) — which
    PostgreSQL filters by, and SQLite by the same set as index tokens."""

    owner_id: int
    scopes: tuple[tuple[str, str, str], ...]
    kinds: tuple[str, ...]
    scope_tokens: tuple[str, ...]
    kind_tokens: tuple[str, ...]


def search(
    *,
    column: str,
    units: tuple[Unit, ...],
    frequencies: dict[str, int],
    limit: int,
    completions: dict[str, tuple[str, ...]] | None = None,
    readable: Readable,
) -> list:
    """Ids of the readable memories whose `column` matches the query, best first: memories
    with every known unit (term or concept), then memories with any selective one."""
    counts = {unit: unit_frequency(unit, frequencies) for unit in units}
    known = [unit for unit in units if counts[unit] > 0]
    if not known:
        return []
    by_rarity = sorted(known, key=lambda unit: (counts[unit], unit))
    selective = [unit for unit in by_rarity if counts[unit] <= COMMON_TERM_DOCS]
    # Only common units: ranking all their matches costs time in proportion to the store
    # and tells little; the newest matches are the better bet.
    newest_first = not selective
    completions = completions or {}
    found = _match(column, known, "AND", readable, limit, newest_first, completions)
    if len(found) < limit and len(known) > 1:
        selective = selective or by_rarity[:MIN_SELECTIVE_TERMS]
        seen = set(found)
        widened = _match(column, selective, "OR", readable, limit, newest_first, completions)
        for memory_id in widened:
            if memory_id not in seen:
                found.append(memory_id)
                seen.add(memory_id)
    return found[:limit]


def _fts5_unit(unit: Unit, completions: dict[str, tuple[str, ...]]) -> str:
    phrasings = [
        " AND ".join(_fts5_term(term, completions) for term in alternative) for alternative in unit
    ]
    return "(" + " OR ".join(f"({phrasing})" for phrasing in phrasings) + ")"


def _ts_unit(unit: Unit, completions: dict[str, tuple[str, ...]]) -> str:
    phrasings = [
        " & ".join(_ts_term(term, completions) for term in alternative) for alternative in unit
    ]
    return "(" + " | ".join(f"({phrasing})" for phrasing in phrasings) + ")"


def _match(column, units, operator, readable, limit, newest_first, completions) -> list:
    if connection.vendor == "sqlite":
        # The scope tokens make FTS5 intersect with the caller's owner, scopes and
        # visibility inside the index (the triggers index only searchable statuses), so
        # the ids it returns need no second check.
        joined = f" {operator} ".join(_fts5_unit(unit, completions) for unit in units)
        match = f"{column} : ({joined}) AND scope : ({' OR '.join(readable.scope_tokens)})"
        if readable.kind_tokens:
            match += f" AND scope : ({' OR '.join(readable.kind_tokens)})"
        weights = "0, 1, 0, 0" if column == "body" else "0, 0, 1, 0"
        # Rowids grow with inserts, and FTS5 walks them in order and stops at the limit.
        order = "rowid DESC" if newest_first else f"bm25(memories_search, {weights}), memory_id"
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT memory_id FROM memories_search WHERE memories_search MATCH %s "
                f"ORDER BY {order} LIMIT %s",
                [match, limit],
            )
            return [Memory._meta.pk.to_python(row[0]) for row in cursor.fetchall()]
    query = (" & " if operator == "AND" else " | ").join(
        _ts_unit(unit, completions) for unit in units
    )
    return _postgres_match(readable, PG_VECTORS[column], query, limit, newest_first)


def _postgres_match(
    readable: Readable, vector: str, query: str, limit: int, newest_first: bool
) -> list:
    """One branch per scope, each ordered and limited on its own, merged: a branch can walk
    the scope's newest-first index and stop after `limit` matches when its terms are common
    (a single-scope query the planner can cost), where one query over all scopes had to
    fetch and sort every match of a common term (41 ms against 2-5 ms for 缓存 at 100k)."""
    visibilities: dict[tuple[str, str], list[str]] = {}
    for scope_type, scope_key, visibility in readable.scopes:
        visibilities.setdefault((scope_type, scope_key), []).append(visibility)
    rank = "updated_at" if newest_first else f"ts_rank({vector}, %s::tsquery)"
    kinds = "AND kind = ANY(%s) " if readable.kinds else ""
    branch = (
        f"(SELECT id, {rank} AS rank FROM memories_memory WHERE owner_id = %s AND scope_type = %s "
        f"AND scope_key = %s AND visibility = ANY(%s) AND status = ANY(%s) {kinds}"
        f"AND {vector} @@ %s::tsquery ORDER BY rank DESC, id LIMIT %s)"
    )
    params: list = []
    for (scope_type, scope_key), allowed in visibilities.items():
        params += [] if newest_first else [query]
        params += [readable.owner_id, scope_type, scope_key, allowed, list(SEARCHABLE_STATUSES)]
        params += [list(readable.kinds)] if readable.kinds else []
        params += [query, limit]
    with connection.cursor() as cursor:
        # A subquery: one scope alone (the owner's global recall) is a single parenthesised
        # SELECT, which PostgreSQL refuses to follow with a second ORDER BY.
        cursor.execute(
            f"SELECT id FROM ({' UNION ALL '.join([branch] * len(visibilities))}) AS found "
            "ORDER BY rank DESC, id LIMIT %s",
            [*params, limit],
        )
        return [row[0] for row in cursor.fetchall()]


def substring_search(*, scoped: QuerySet[Memory], needle: str, limit: int) -> list:
    """For queries too short to have terms (one CJK character, a symbol): a bounded
    substring scan of the scoped memories, newest first (pg_trgm serves it on PostgreSQL)."""
    return list(
        scoped.filter(content__icontains=needle)
        .order_by("-updated_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def compact() -> None:
    """Keep the index quick to read. SQLite: merge FTS5's segments (deleted memories leave
    terms in them until then). PostgreSQL: move each GIN index's pending list into its tree:
    with fastupdate, new entries wait in an unsorted list that every search scans until a
    VACUUM gets to it (measured after loading 100k memories: 25-49 ms for one query against
    1-9 ms once merged)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("INSERT INTO memories_search (memories_search) VALUES ('optimize')")
        else:
            for name in PG_INDEXES:
                cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [name])
    refresh_words()
