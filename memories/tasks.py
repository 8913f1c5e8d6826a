"""Background work for memories."""

from __future__ import annotations

from celery import shared_task
from django.db.models import F
from django.utils import timezone

from memories.models import Memory


@shared_task(name="memories.record_access", ignore_result=True, acks_late=True)
def record_access(memory_ids: list[str]) -> int:
    """Count one read of each memory. Safe if a memory is gone; a retry may count a read
    twice, which is acceptable for a usage statistic. Never touches updated_at, so ranking
    and the full-text index are unaffected."""
    return Memory.objects.filter(pk__in=memory_ids).update(
        access_count=F("access_count") + 1, last_accessed_at=timezone.now()
    )
