"""Token links point at the accounts app (no schema change)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("handoff", "0001_initial"),
    ]

    operations = [
        # The tables already exist: only Django's picture of the models changes.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="handoffcapsule",
                    name="from_token",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.personalaccesstoken",
                    ),
                ),
            ],
        ),
    ]
