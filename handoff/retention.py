"""Handoff's retention rule: capsules long expired (found by `foundation.maintenance.retention` autodiscovery)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from foundation.maintenance.retention import RetentionRule, register_rule

register_rule(RetentionRule(
    name="expired_handoffs",
    model="handoff.HandoffCapsule",
    age_fields=("expires_at",),
    setting="CONTINUITY_RETENTION_HANDOFFS_DAYS",
    default=30,
    unit="days",
    description=gettext_noop("Handoff capsules this long after they expired (resume never returns an "
    "expired capsule; the grace period lets the owner still read it)."),
))  # fmt: skip
