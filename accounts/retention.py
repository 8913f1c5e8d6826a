"""Accounts' retention rules: old tokens, spent throttle counters (found by `foundation.maintenance.retention` autodiscovery)."""

from __future__ import annotations

from foundation.maintenance.retention import RetentionRule, register_rule

register_rule(RetentionRule(
    name="revoked_or_expired_tokens",
    model="accounts.PersonalAccessToken",
    age_fields=("revoked_at", "expires_at"),
    setting="CONTINUITY_RETENTION_TOKENS_DAYS",
    default=90,
    unit="days",
    description="Agent tokens revoked or expired this long ago (memories and history keep "
    "the agent's name).",
))  # fmt: skip
register_rule(RetentionRule(
    name="throttle_counters",
    model="accounts.ThrottleCounter",
    age_fields=("window_ends_at",),
    setting="CONTINUITY_RETENTION_COUNTERS_HOURS",
    default=24,
    unit="hours",
    max_value=24 * 365,
    description="Sign-in and rate-limit counters this long after their window ended (a "
    "new window starts afresh either way).",
))  # fmt: skip
