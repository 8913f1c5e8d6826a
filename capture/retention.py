"""Capture's retention rules (found by `foundation.maintenance.retention` autodiscovery).

Raw conversation is the high-volume table: events live 7 days by default, which is long
enough for extraction and review and short enough that a conversation is not an archive.
Rules run in this order, so events go before the batches they point to.
"""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext_noop

from capture.models import BatchStatus, CandidateStatus
from foundation.maintenance.retention import RetentionRule, register_rule

register_rule(RetentionRule(
    name="conversation_events",
    model="capture.ConversationEvent",
    age_fields=("created_at",),
    setting="CONTINUITY_RETENTION_EVENTS_DAYS",
    default=7,
    unit="days",
    description=gettext_noop("Captured conversation (redacted) once it is this old; candidates keep their "
    "evidence sentences."),
))  # fmt: skip
register_rule(RetentionRule(
    name="pending_candidates",
    model="capture.Candidate",
    age_fields=("updated_at",),
    setting="CONTINUITY_RETENTION_CANDIDATES_DAYS",
    default=30,
    unit="days",
    extra=Q(status=CandidateStatus.PENDING),
    update={"status": CandidateStatus.EXPIRED},
    description=gettext_noop("Candidates left pending this long (no new evidence either) become expired; "
    "their evidence is kept."),
))  # fmt: skip
register_rule(RetentionRule(
    name="capture_batches",
    model="capture.CaptureBatch",
    age_fields=("finished_at",),
    setting="CONTINUITY_RETENTION_BATCHES_DAYS",
    default=7,
    unit="days",
    extra=Q(status__in=(BatchStatus.DONE, BatchStatus.FAILED)),
    description=gettext_noop("Processed capture batches (their status and counts) this long after they "
    "finished; a failed batch's raw items go with it."),
))  # fmt: skip
