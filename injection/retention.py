"""Injection's retention rule (found by `foundation.maintenance.retention` autodiscovery)."""

from __future__ import annotations

from foundation.maintenance.retention import RetentionRule, register_rule

register_rule(RetentionRule(
    name="injection_receipts",
    model="injection.InjectionReceipt",
    age_fields=("created_at",),
    setting="CONTINUITY_RETENTION_RECEIPTS_DAYS",
    default=30,
    unit="days",
    max_rows_setting="CONTINUITY_RETENTION_RECEIPTS_MAX_ROWS",
    description="Receipts of memories injected into prompts (also at most "
    "CONTINUITY_RETENTION_RECEIPTS_MAX_ROWS of them, the newest).",
))  # fmt: skip
