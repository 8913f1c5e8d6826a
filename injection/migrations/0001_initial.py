"""Injection receipts move here from capture; their tables stay where 0.1.0 made them."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("capture", "0001_initial"),
        ("accounts", "0001_initial"),
        ("memories", "0008_models_moved_in"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables already exist: only Django's picture of the models changes.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="InjectionReceipt",
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
                        ("agent_name", models.CharField(blank=True, max_length=100)),
                        ("project_key", models.CharField(blank=True, max_length=300)),
                        ("prompt_sha256", models.CharField(max_length=12)),
                        ("memory_ids", models.JSONField(blank=True, default=list)),
                        ("token_estimate", models.PositiveIntegerField(default=0)),
                        ("latency_ms", models.FloatField(default=0)),
                        ("reason", models.CharField(blank=True, max_length=64)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "owner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="injection_receipts",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "token",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="accounts.personalaccesstoken",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "capture_injectionreceipt",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="InjectedMemory",
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
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "memory",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="memories.memory",
                            ),
                        ),
                        (
                            "receipt",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="items",
                                to="injection.injectionreceipt",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "capture_injectedmemory",
                    },
                ),
                migrations.AddIndex(
                    model_name="injectionreceipt",
                    index=models.Index(fields=["owner", "-created_at"], name="injection_owner_idx"),
                ),
                migrations.AddIndex(
                    model_name="injectionreceipt",
                    index=models.Index(fields=["created_at"], name="injection_age_idx"),
                ),
                migrations.AddIndex(
                    model_name="injectedmemory",
                    index=models.Index(
                        fields=["memory", "-created_at"], name="injected_memory_idx"
                    ),
                ),
            ],
        ),
    ]
