"""The two backends' full-text indexes behind one small interface.

Both index the same pre-analysed terms (memories.retrieval.analysis), so a query matches
the same memories on SQLite and PostgreSQL; only the ranking function differs (bm25 vs
ts_rank), and recall uses ranks, not raw scores.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from memories.models import Memory

# Migration 0003 builds its GIN indexes over exactly these expressions; the planner uses an
# index only when a query repeats its expression.
PG_VECTORS = {
    "body": "array_to_tsvector(string_to_array(search_body, ' '))",
    "aux": "array_to_tsvector(string_to_array(search_aux, ' '))",
}
PREFIX_MIN_CHARS = 4  # latin terms this long also match longer words: postgres → postgresql


def wants_prefix(term: str) -> bool:
    return term.isascii() and term.isalpha() and len(term) >= PREFIX_MIN_CHARS


def _fts5_terms(terms) -> str:
    return " OR ".join(f'"{term}"*' if wants_prefix(term) else f'"{term}"' for term in terms)


def _tsquery(terms) -> str:
    return " | ".join(f"'{term}':*" if wants_prefix(term) else f"'{term}'" for term in terms)


def search(
    *,
    scoped: QuerySet[Memory],
    column: str,
    terms: tuple[str, ...],
    scope_tokens: list[str],
    kind_tokens: list[str],
    limit: int,
) -> list:
    """Ids of the scoped memories whose `column` matches any of `terms`, best first."""
    if not terms:
        return []
    if connection.vendor == "sqlite":
        # The scope tokens make FTS5 intersect with the caller's scopes inside the index,
        # so cost follows the matches in scope, not in the whole store.
        match = f"{column} : ({_fts5_terms(terms)}) AND scope : ({' OR '.join(scope_tokens)})"
        if kind_tokens:
            match += f" AND scope : ({' OR '.join(kind_tokens)})"
        weights = "0, 1, 0, 0" if column == "body" else "0, 0, 1, 0"
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT memory_id FROM memories_search WHERE memories_search MATCH %s "
                f"ORDER BY bm25(memories_search, {weights}), memory_id LIMIT %s",
                [match, limit * 2],
            )
            ranked = [row[0] for row in cursor.fetchall()]
        # The index says what matches; the queryset re-applies visibility and status.
        allowed = set(scoped.filter(pk__in=ranked).values_list("pk", flat=True))
        order = [Memory._meta.pk.to_python(value) for value in ranked]
        return [pk for pk in order if pk in allowed][:limit]
    vector = PG_VECTORS[column]
    query = _tsquery(terms)
    return list(
        scoped.extra(where=[f"{vector} @@ %s::tsquery"], params=[query])
        .annotate(text_rank=RawSQL(f"ts_rank({vector}, %s::tsquery)", [query]))
        .order_by("-text_rank", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def substring_search(*, scoped: QuerySet[Memory], needle: str, limit: int) -> list:
    """For queries too short to have terms (one CJK character, a symbol): a bounded
    substring scan of the scoped memories, newest first (pg_trgm serves it on PostgreSQL)."""
    return list(
        scoped.filter(content__icontains=needle).order_by("-updated_at", "pk").values_list("pk", flat=True)[:limit]
    )


def known_terms(terms) -> set[str]:
    """Which of these terms occur in any indexed memory (of any scope)."""
    known = set()
    for term in terms:
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT 1 FROM memories_search WHERE memories_search MATCH %s LIMIT 1",
                    [f'{{body aux}} : "{term}"'],
                )
                found = cursor.fetchone() is not None
        else:
            found = (
                Memory.objects.extra(
                    where=[f"({PG_VECTORS['body']} @@ %s::tsquery OR {PG_VECTORS['aux']} @@ %s::tsquery)"],
                    params=[f"'{term}'", f"'{term}'"],
                ).exists()
            )
        if found:
            known.add(term)
    return known


def compact() -> None:
    """Rewrite the index so deleted memories leave nothing behind in it (SQLite keeps
    deleted terms in its segments until a merge); PostgreSQL needs nothing here."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO memories_search (memories_search) VALUES ('optimize')")
