"""Memories held for the owner, and key/statement uniqueness per visibility.

`held` marks text an agent wrote that was stored disputed (quarantined as instructions to
agents, or contradicting what the owner trusts); agents never read it until the owner
releases it. Existing rows: every disputed memory is held, and so is any memory whose
creation was recorded as quarantined or contradicting and that the owner has not trusted
since (an agent could supersede its own quarantined memory before this marker existed).

The column is added with ALTER TABLE rather than AddField: SQLite would rebuild the
table for a NOT NULL column, dropping the full-text index's triggers (see 0006).
"""

from django.db import migrations, models

HELD_REASONS = ("quarantined", "contradicts ")


def add_column(apps, schema_editor):
    false = "0" if schema_editor.connection.vendor == "sqlite" else "false"
    schema_editor.execute(
        f'ALTER TABLE "memories_memory" ADD COLUMN "held" boolean NOT NULL DEFAULT {false}'
    )


def drop_column(apps, schema_editor):
    schema_editor.execute('ALTER TABLE "memories_memory" DROP COLUMN "held"')


def mark_held(apps, schema_editor):
    Memory = apps.get_model("memories", "Memory")
    MemoryEvent = apps.get_model("memories", "MemoryEvent")
    Memory.objects.filter(status="disputed").update(held=True)
    for reason in HELD_REASONS:
        created = MemoryEvent.objects.filter(event_type="created", reason__startswith=reason)
        ids = list(created.values_list("memory_id", flat=True).distinct())
        for start in range(0, len(ids), 500):
            Memory.objects.filter(pk__in=ids[start : start + 500]).exclude(
                trust__in=("confirmed", "locked")
            ).update(held=True)


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0008_models_moved_in"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="memory",
                    name="held",
                    field=models.BooleanField(default=False),
                ),
            ],
            database_operations=[migrations.RunPython(add_column, drop_column)],
        ),
        migrations.RunPython(mark_held, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="memory", name="memory_one_active_per_key"),
        migrations.RemoveConstraint(model_name="memory", name="memory_one_live_per_fingerprint"),
        migrations.AddConstraint(
            model_name="memory",
            constraint=models.UniqueConstraint(
                condition=models.Q(("held", False), ("key__isnull", False), ("status", "active")),
                fields=("owner", "scope_type", "scope_key", "key", "visibility"),
                name="memory_one_active_per_key_visibility",
            ),
        ),
        migrations.AddConstraint(
            model_name="memory",
            constraint=models.UniqueConstraint(
                condition=models.Q(("held", False), ("status", "active")),
                fields=("owner", "fingerprint", "visibility"),
                name="memory_one_active_per_fingerprint_visibility",
            ),
        ),
    ]
