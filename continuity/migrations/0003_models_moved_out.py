"""The project package keeps no models: they moved to foundation, accounts and memories with their tables."""

from django.db import migrations

MOVES = [
    ("continuity", "accounts", "personalaccesstoken"),
    ("continuity", "foundation", "maintenancelock"),
    ("continuity", "foundation", "maintenancerun"),
    ("continuity", "foundation", "retentionoverride"),
    ("continuity", "memories", "reviewproposal"),
]


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
        ("foundation", "0001_initial"),
        ("capture", "0002_injection_moved_out"),
        ("continuity", "0002_maintenance"),
        ("handoff", "0002_token_moved"),
        ("memories", "0008_models_moved_in"),
    ]

    operations = [
        # The tables already exist: only Django's picture of the models changes.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(
                    name="MaintenanceLock",
                ),
                migrations.RemoveIndex(
                    model_name="maintenancerun",
                    name="run_task_status_idx",
                ),
                migrations.RemoveIndex(
                    model_name="maintenancerun",
                    name="run_started_idx",
                ),
                migrations.RemoveConstraint(
                    model_name="maintenancerun",
                    name="run_status_valid",
                ),
                migrations.DeleteModel(
                    name="MaintenanceRun",
                ),
                migrations.RemoveIndex(
                    model_name="personalaccesstoken",
                    name="continuity__owner_i_4f4783_idx",
                ),
                migrations.RemoveConstraint(
                    model_name="personalaccesstoken",
                    name="token_agent_name_required",
                ),
                migrations.RemoveField(
                    model_name="retentionoverride",
                    name="updated_by",
                ),
                migrations.RemoveIndex(
                    model_name="reviewproposal",
                    name="proposal_owner_idx",
                ),
                migrations.RemoveConstraint(
                    model_name="reviewproposal",
                    name="proposal_unique_key",
                ),
                migrations.RemoveConstraint(
                    model_name="reviewproposal",
                    name="proposal_kind_valid",
                ),
                migrations.RemoveConstraint(
                    model_name="reviewproposal",
                    name="proposal_status_valid",
                ),
                migrations.RemoveField(
                    model_name="personalaccesstoken",
                    name="owner",
                ),
                migrations.DeleteModel(
                    name="RetentionOverride",
                ),
                migrations.RemoveField(
                    model_name="reviewproposal",
                    name="owner",
                ),
                migrations.DeleteModel(
                    name="PersonalAccessToken",
                ),
                migrations.DeleteModel(
                    name="ReviewProposal",
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
