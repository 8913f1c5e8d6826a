"""Step 7: the full-text index kept compact, and the planner's statistics fresh."""

from __future__ import annotations

from django.db import connection

from memories.retrieval import index as search_index


def optimize_index() -> dict:
    search_index.compact()
    if connection.vendor == "sqlite":
        return {"vendor": "sqlite", "action": "fts5 optimize"}
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
    return {"vendor": connection.vendor, "action": "gin pending lists merged, analyze"}
