"""The last refusal a token met, kept on the token so the owner sees what an agent cannot do
and why: a hook whose token lacks `capture:write` fails open on the agent's machine, and
without this only that machine's log would know. Noted are the refusals only the owner can
fix — a missing scope or a project the token may not touch, a revoked or expired token still
in use, a rate limit — never an agent's own mistakes (invalid input, a version conflict).
The messages are Continuity's own, so nothing an agent sent is kept."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import PersonalAccessToken
from foundation.errors import ErrorCode, ServiceError

NOTED = frozenset({ErrorCode.FORBIDDEN, ErrorCode.UNAUTHORIZED, ErrorCode.RATE_LIMITED})
# The same refusal again within this time is not written again (a hook retrying, a burst).
RESOLUTION = timedelta(seconds=30)
MESSAGE_LIMIT = 300
WHERE_LIMIT = 120


def note_refusal(token: PersonalAccessToken, error: ServiceError, where: str = "") -> None:
    if error.code not in NOTED:
        return
    record = {
        "code": str(error.code),
        "message": error.message[:MESSAGE_LIMIT],
        "where": where[:WHERE_LIMIT],
    }
    now = timezone.now()
    recent = token.last_refusal_at is not None and now - token.last_refusal_at < RESOLUTION
    if recent and token.last_refusal == record:
        return
    PersonalAccessToken.objects.filter(pk=token.pk).update(last_refusal_at=now, last_refusal=record)
    token.last_refusal_at, token.last_refusal = now, record


def unusable_token_error(token: PersonalAccessToken) -> ServiceError:
    """What the owner is told about a revoked or expired token that an agent still sends."""
    if token.is_revoked:
        return ServiceError(ErrorCode.UNAUTHORIZED, STILL_USED_REVOKED)
    return ServiceError(ErrorCode.UNAUTHORIZED, STILL_USED_EXPIRED)


STILL_USED_REVOKED = gettext_noop("An agent still uses this revoked token: give it a new one.")
STILL_USED_EXPIRED = gettext_noop("An agent still uses this expired token: give it a new one.")
