import django.db.models.deletion
from django.db import migrations, models

# The foreign key's own index becomes a partial one. Only the index changes: altering the
# field would make SQLite rebuild the table, dropping the full-text index's triggers.
FOREIGN_KEY_INDEX = "memories_memory_supersedes_id_37f65940"


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0005_memory_vector"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="memory",
                    name="supersedes",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="superseded_by",
                        to="memories.memory",
                    ),  # fmt: skip
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{FOREIGN_KEY_INDEX}"',
                    reverse_sql=f'CREATE INDEX "{FOREIGN_KEY_INDEX}" ON "memories_memory" ("supersedes_id")',
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("supersedes__isnull", False)),
                fields=["supersedes"],
                name="mem_supersedes_idx",
            ),
        ),
    ]
