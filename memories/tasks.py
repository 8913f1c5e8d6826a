"""Background work for memories."""

from __future__ import annotations

from collections import Counter

from celery import shared_task
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from foundation.maintenance.runs import PeriodicJob, job_run, register_job
from foundation.tasks import MAINTENANCE_TASK
from memories.embeddings.embedders import EmbedderUnavailable
from memories.models import Memory

COMPACTION_JOB = register_job(
    PeriodicJob(
        name="memories.compaction",
        interval_setting="CONTINUITY_COMPACTION_INTERVAL_SECONDS",
        description=gettext_noop(
            "Merge exact duplicates, propose near-duplicates and stale memories for "
            "Review, optimize the full-text index."
        ),
    )
)


@shared_task(name="memories.record_access", ignore_result=True, acks_late=True)
def record_access(counts: dict[str, int] | list[str]) -> int:
    """Count reads: {memory id: reads} (a list of ids counts one read each). Safe if a
    memory is gone; a retry may count a read twice, which is acceptable for a usage
    statistic. Never touches updated_at, so ranking and the full-text index are unaffected."""
    if isinstance(counts, list):
        counts = dict(Counter(counts))
    by_reads: dict[int, list[str]] = {}
    for memory_id, reads in counts.items():
        by_reads.setdefault(int(reads), []).append(memory_id)
    now = timezone.now()
    return sum(
        Memory.objects.filter(pk__in=ids).update(
            access_count=F("access_count") + reads, last_accessed_at=now
        )
        for reads, ids in by_reads.items()
    )


@shared_task(
    name="memories.embed_memories", ignore_result=True, acks_late=True,
    autoretry_for=(EmbedderUnavailable,), retry_backoff=30, max_retries=5,
)  # fmt: skip
def embed_memories(memory_ids: list[str]) -> int:
    """Embed these memories with the active model (routed to the `embeddings` queue).
    Idempotent: memories whose vector matches their text and model are skipped, deleted
    ones ignored. Retried while the model is unavailable; the back-fill catches the rest."""
    from memories.embeddings.vectors import embed_memories as embed

    return embed(memory_ids=memory_ids)


@shared_task(name="memories.backfill_embeddings", ignore_result=True, acks_late=True)
def backfill_embeddings(owner_id: int) -> int:
    """Embed every memory of this owner that lacks a current vector (routed to the
    `embeddings` queue; started from the dashboard). Idempotent and resumable."""
    from django.contrib.auth import get_user_model

    from memories.embeddings.vectors import backfill

    owner = get_user_model().objects.filter(pk=owner_id).first()
    return backfill(owner=owner) if owner is not None else 0


@shared_task(name=COMPACTION_JOB.name, **MAINTENANCE_TASK)
def compaction(force: bool = False) -> dict:
    """Run memories.compaction once, recorded as a MaintenanceRun. Idempotent: merges and
    proposals are never repeated; skipped when another worker runs it or it ran less than
    half an interval ago (unless `force`)."""
    from memories.compaction import compaction as compact

    run = job_run(COMPACTION_JOB, lambda deadline: compact(deadline=deadline), force=force)
    return {"run": run.pk, "status": run.status, "result": run.result}
