"""Access tokens move here from the project package; their table stays where 0.1.0 made it."""

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
                    name="PersonalAccessToken",
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
                        ("name", models.CharField(max_length=100)),
                        ("purpose", models.CharField(blank=True, max_length=300)),
                        ("agent_name", models.CharField(max_length=100)),
                        ("prefix", models.CharField(max_length=16, unique=True)),
                        ("secret_hash", models.CharField(max_length=64)),
                        ("scopes", models.JSONField(default=list)),
                        ("allowed_projects", models.JSONField(blank=True, default=list)),
                        ("expires_at", models.DateTimeField()),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "owner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="access_tokens",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "continuity_personalaccesstoken",
                        "ordering": ["-created_at"],
                        "indexes": [
                            models.Index(
                                fields=["owner", "-created_at"],
                                name="continuity__owner_i_4f4783_idx",
                            )
                        ],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("agent_name", ""), _negated=True),
                                name="token_agent_name_required",
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
