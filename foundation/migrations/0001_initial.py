"""Maintenance records move here from the project package; their tables stay where 0.1.0 made them."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("continuity", "0002_maintenance"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables already exist: only Django's picture of the models changes.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="MaintenanceLock",
                    fields=[
                        (
                            "name",
                            models.CharField(max_length=100, primary_key=True, serialize=False),
                        ),
                        ("holder", models.CharField(max_length=64)),
                        ("acquired_at", models.DateTimeField()),
                        ("expires_at", models.DateTimeField()),
                    ],
                    options={
                        "db_table": "continuity_maintenancelock",
                    },
                ),
                migrations.CreateModel(
                    name="MaintenanceRun",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("task", models.CharField(max_length=100)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("running", "Running"),
                                    ("succeeded", "Succeeded"),
                                    ("failed", "Failed"),
                                    ("skipped", "Skipped"),
                                ],
                                max_length=10,
                            ),
                        ),
                        ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("worker", models.CharField(blank=True, max_length=200)),
                        ("result", models.JSONField(blank=True, default=dict)),
                        ("error", models.CharField(blank=True, max_length=500)),
                    ],
                    options={
                        "db_table": "continuity_maintenancerun",
                        "ordering": ["-started_at", "-id"],
                        "indexes": [
                            models.Index(
                                fields=["task", "status", "-started_at"], name="run_task_status_idx"
                            ),
                            models.Index(fields=["started_at"], name="run_started_idx"),
                        ],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("status__in", ["running", "succeeded", "failed", "skipped"])
                                ),
                                name="run_status_valid",
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="RetentionOverride",
                    fields=[
                        (
                            "rule",
                            models.CharField(max_length=100, primary_key=True, serialize=False),
                        ),
                        ("value", models.PositiveIntegerField()),
                        ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "updated_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "continuity_retentionoverride",
                    },
                ),
            ],
        ),
    ]
