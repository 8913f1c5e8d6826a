"""PostgreSQL: store the term vectors instead of indexing an expression.

With an expression index, any plan that reads rows rather than the index (a capped count
of a common term, a scan the planner prefers) rebuilds the vector from text for every row.
Stored generated columns are computed once per write and read as they are.
"""

from django.db import migrations

BODY = "array_to_tsvector(string_to_array(search_body, ' '))"
AUX = "array_to_tsvector(string_to_array(search_aux, ' '))"
FORWARD = [
    "DROP INDEX IF EXISTS memories_search_body_gin",
    "DROP INDEX IF EXISTS memories_search_aux_gin",
    f"ALTER TABLE memories_memory ADD COLUMN search_body_vector tsvector GENERATED ALWAYS AS ({BODY}) STORED",
    f"ALTER TABLE memories_memory ADD COLUMN search_aux_vector tsvector GENERATED ALWAYS AS ({AUX}) STORED",
    "CREATE INDEX memories_search_body_gin ON memories_memory USING gin (search_body_vector)",
    "CREATE INDEX memories_search_aux_gin ON memories_memory USING gin (search_aux_vector)",
]
BACKWARD = [
    "DROP INDEX IF EXISTS memories_search_body_gin",
    "DROP INDEX IF EXISTS memories_search_aux_gin",
    "ALTER TABLE memories_memory DROP COLUMN IF EXISTS search_body_vector",
    "ALTER TABLE memories_memory DROP COLUMN IF EXISTS search_aux_vector",
    f"CREATE INDEX memories_search_body_gin ON memories_memory USING gin (({BODY}))",
    f"CREATE INDEX memories_search_aux_gin ON memories_memory USING gin (({AUX}))",
]


def run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("memories", "0003_search_index")]

    operations = [migrations.RunPython(run(FORWARD), run(BACKWARD))]
