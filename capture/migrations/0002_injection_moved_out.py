"""Injection receipts now belong to the injection app (tables kept); token links point at accounts."""

import django.db.models.deletion
from django.db import migrations, models

MOVES = [("capture", "injection", "injectionreceipt"), ("capture", "injection", "injectedmemory")]


def move_content_types(apps, schema_editor, moves):
    """Content types (and so permissions and admin history) follow their models."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for old_label, new_label, model in moves:
        ContentType.objects.filter(app_label=new_label, model=model).delete()
        ContentType.objects.filter(app_label=old_label, model=model).update(app_label=new_label)


def forwards(apps, schema_editor):
    move_content_types(apps, schema_editor, MOVES)


def backwards(apps, schema_editor):
    move_content_types(apps, schema_editor, [(new, old, model) for old, new, model in MOVES])


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("injection", "0001_initial"),
        ("accounts", "0001_initial"),
        ("capture", "0001_initial"),
    ]

    operations = [
        # The tables already exist: only Django's picture of the models changes.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(
                    model_name="injectedmemory",
                    name="injected_memory_idx",
                ),
                migrations.RemoveIndex(
                    model_name="injectionreceipt",
                    name="injection_owner_idx",
                ),
                migrations.RemoveIndex(
                    model_name="injectionreceipt",
                    name="injection_age_idx",
                ),
                migrations.AlterField(
                    model_name="capturebatch",
                    name="token",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.personalaccesstoken",
                    ),
                ),
                migrations.RemoveField(
                    model_name="injectionreceipt",
                    name="owner",
                ),
                migrations.RemoveField(
                    model_name="injectionreceipt",
                    name="token",
                ),
                migrations.DeleteModel(
                    name="InjectedMemory",
                ),
                migrations.DeleteModel(
                    name="InjectionReceipt",
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
