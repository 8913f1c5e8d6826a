"""Idempotency keys: a replayed write returns its first receipt and writes nothing."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, validation_error
from memories.models import IdempotencyRecord
from memories.services.common import serialize_writers
from memories.services.validation import MAX_IDEMPOTENCY_KEY_CHARS


def idempotent(
    *,
    actor: Actor,
    key: str | None,
    operation: str,
    request_digest: str,
    perform: Callable[[], dict],
) -> dict:
    """Run `perform` once per (caller, key) and keep its receipt. Must run inside the
    transaction that writes, so the receipt commits or rolls back with the write itself.

    The same key with a different request is refused (IDEMPOTENCY_CONFLICT) rather than
    answered with a receipt for something the caller did not ask this time.
    """
    if key is None:
        return perform()
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
        raise validation_error(
            gettext_noop("idempotency_key must be 1-%(limit)s characters."),
            field="idempotency_key",
            limit=MAX_IDEMPOTENCY_KEY_CHARS,
        )
    namespace = actor.idempotency_namespace
    serialize_writers("idempotency", actor.user.pk, namespace, key)
    record = IdempotencyRecord.objects.filter(
        owner=actor.user, namespace=namespace, key=key
    ).first()
    if record is not None:
        if record.operation != operation or record.request_hash != request_digest:
            raise ServiceError(
                ErrorCode.IDEMPOTENCY_CONFLICT,
                gettext_noop("This idempotency_key was already used for a different request."),
                [{"field": "idempotency_key"}],
            )
        return record.receipt
    receipt = perform()
    IdempotencyRecord.objects.create(
        owner=actor.user,
        namespace=namespace,
        key=key,
        operation=operation,
        request_hash=request_digest,
        receipt=receipt,
    )
    return receipt
