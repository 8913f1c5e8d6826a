"""The full-text index recall searches, one per backend.

SQLite: an FTS5 table (unicode61 over the pre-analysed terms in search_body / search_aux,
plus the scope tokens in search_scope) whose rowid is the memory's rowid, kept in sync by
triggers for active and superseded memories only.

PostgreSQL: GIN indexes over tsvectors built straight from the term arrays (no parser, so
CJK bigrams stay intact), and a pg_trgm index on content for substring matches.
"""

from django.db import migrations

SQLITE_FORWARD = [
    """
    CREATE VIRTUAL TABLE memories_search USING fts5(
        memory_id UNINDEXED, body, aux, scope,
        tokenize = 'unicode61 remove_diacritics 2'
    )
    """,
    """
    CREATE TRIGGER memories_search_insert AFTER INSERT ON memories_memory
    WHEN new.status IN ('active', 'superseded') BEGIN
        INSERT INTO memories_search (rowid, memory_id, body, aux, scope)
        VALUES (new.rowid, new.id, new.search_body, new.search_aux, new.search_scope);
    END
    """,
    """
    CREATE TRIGGER memories_search_delete AFTER DELETE ON memories_memory BEGIN
        DELETE FROM memories_search WHERE rowid = old.rowid;
    END
    """,
    """
    CREATE TRIGGER memories_search_update
    AFTER UPDATE OF status, search_body, search_aux, search_scope ON memories_memory BEGIN
        DELETE FROM memories_search WHERE rowid = old.rowid;
        INSERT INTO memories_search (rowid, memory_id, body, aux, scope)
        SELECT new.rowid, new.id, new.search_body, new.search_aux, new.search_scope
        WHERE new.status IN ('active', 'superseded');
    END
    """,
    # Document frequencies per term, for choosing which query terms are worth ranking.
    "CREATE VIRTUAL TABLE memories_search_vocab USING fts5vocab(memories_search, 'row')",
    """
    INSERT INTO memories_search (rowid, memory_id, body, aux, scope)
    SELECT rowid, id, search_body, search_aux, search_scope FROM memories_memory
    WHERE status IN ('active', 'superseded')
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_search_update",
    "DROP TRIGGER IF EXISTS memories_search_delete",
    "DROP TRIGGER IF EXISTS memories_search_insert",
    "DROP TABLE IF EXISTS memories_search_vocab",
    "DROP TABLE IF EXISTS memories_search",
]

# Kept in one place: memories.retrieval.index uses the same expressions, so the planner
# matches queries to these indexes.
PG_BODY = "array_to_tsvector(string_to_array(search_body, ' '))"
PG_AUX = "array_to_tsvector(string_to_array(search_aux, ' '))"
POSTGRES_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"CREATE INDEX memories_search_body_gin ON memories_memory USING gin (({PG_BODY}))",
    f"CREATE INDEX memories_search_aux_gin ON memories_memory USING gin (({PG_AUX}))",
    "CREATE INDEX memories_content_trgm ON memories_memory USING gin (content gin_trgm_ops)",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS memories_content_trgm",
    "DROP INDEX IF EXISTS memories_search_aux_gin",
    "DROP INDEX IF EXISTS memories_search_body_gin",
]


def backfill_search_fields(apps, schema_editor):
    from memories.retrieval.analysis import document_fields

    Memory = apps.get_model("memories", "Memory")
    batch = []
    for memory in Memory.objects.iterator(chunk_size=1000):
        for name, value in document_fields(memory).items():
            setattr(memory, name, value)
        batch.append(memory)
        if len(batch) == 1000:
            Memory.objects.bulk_update(batch, ["search_body", "search_aux", "search_scope"])
            batch = []
    Memory.objects.bulk_update(batch, ["search_body", "search_aux", "search_scope"])


def run(statements_by_vendor):
    def apply(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("memories", "0002_search_fields")]

    operations = [
        migrations.RunPython(backfill_search_fields, migrations.RunPython.noop),
        migrations.RunPython(
            run({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}),
            run({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}),
        ),
    ]
