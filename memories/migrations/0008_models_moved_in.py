"""Review proposals move here from the project package (their table stays), and token links point at the accounts app."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("continuity", "0002_maintenance"),
        ("accounts", "0001_initial"),
        ("memories", "0007_postgres_search_terms"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables already exist: only Django's picture of the models changes.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="memory",
                    name="created_by_token",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="memories",
                        to="accounts.personalaccesstoken",
                    ),
                ),
                migrations.AlterField(
                    model_name="memoryevent",
                    name="actor_token",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.personalaccesstoken",
                    ),
                ),
                migrations.CreateModel(
                    name="ReviewProposal",
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
                        (
                            "kind",
                            models.CharField(
                                choices=[("near_duplicate", "Near Duplicate"), ("stale", "Stale")],
                                max_length=16,
                            ),
                        ),
                        ("key", models.CharField(max_length=200)),
                        ("memory_ids", models.JSONField(default=list)),
                        ("score", models.FloatField(blank=True, null=True)),
                        ("detail", models.JSONField(blank=True, default=dict)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("accepted", "Accepted"),
                                    ("dismissed", "Dismissed"),
                                    ("obsolete", "Obsolete"),
                                ],
                                default="pending",
                                max_length=10,
                            ),
                        ),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "owner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="review_proposals",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "continuity_reviewproposal",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(
                                fields=["owner", "status", "-created_at"], name="proposal_owner_idx"
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("owner", "key"), name="proposal_unique_key"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("kind__in", ["near_duplicate", "stale"])),
                                name="proposal_kind_valid",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("status__in", ["pending", "accepted", "dismissed", "obsolete"])
                                ),
                                name="proposal_status_valid",
                            ),
                        ],
                    },
                ),
            ],
        ),
    ]
