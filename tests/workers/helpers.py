"""Builders shared by the worker tests and the cleanup benchmark."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memories.models import IdempotencyRecord


def idempotency_records(
    owner, count: int, *, age: timedelta, prefix: str = "k", batch: int = 5000
) -> None:
    """`count` idempotency records created `age` ago, inserted in batches."""
    created_at = timezone.now() - age
    for start in range(0, count, batch):
        IdempotencyRecord.objects.bulk_create(
            IdempotencyRecord(
                owner=owner,
                namespace=f"user:{owner.pk}",
                key=f"{prefix}{index}",
                operation="remember",
                request_hash="0" * 64,
                receipt={"id": index},
                created_at=created_at,
            )  # fmt: skip
            for index in range(start, min(start + batch, count))
        )
