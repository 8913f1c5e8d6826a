"""Memories' retention rule: receipts of idempotent writes (found by `foundation.maintenance.retention` autodiscovery)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from foundation.maintenance.retention import RetentionRule, register_rule

register_rule(RetentionRule(
    name="idempotency_records",
    model="memories.IdempotencyRecord",
    age_fields=("created_at",),
    setting="CONTINUITY_RETENTION_IDEMPOTENCY_HOURS",
    default=24,
    unit="hours",
    max_value=24 * 365,
    description=gettext_noop("Receipts of writes made with an idempotency key (a replay after this "
    "window is treated as a new write)."),
))  # fmt: skip
