"""PostgreSQL: a dictionary of the words the search index holds.

Recall spells a prefix term out as the few words it begins (GIN reads exact entries with
its fast scan, but merges every posting list a prefix matches into a bitmap first: 9 ms
against 1 ms for one query at 100k). SQLite reads the same from FTS5's vocabulary table.
Words are added after each memory write commits (never removed: a word whose memories are
gone only costs a lookup that finds nothing) and refreshed by the compaction job.
"""

from django.db import migrations

FORWARD = [
    'CREATE TABLE memories_search_term (term text COLLATE "C" PRIMARY KEY)',
    """
    INSERT INTO memories_search_term (term)
    SELECT DISTINCT word FROM memories_memory,
        unnest(string_to_array(search_body || ' ' || search_aux, ' ')) AS word
    WHERE word <> ''
    ON CONFLICT DO NOTHING
    """,
]
BACKWARD = ["DROP TABLE IF EXISTS memories_search_term"]


def run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("memories", "0006_partial_supersedes_index")]

    operations = [migrations.RunPython(run(FORWARD), run(BACKWARD))]
