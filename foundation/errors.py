"""The one error type every service raises, and the envelope every door renders it in.

    {"error": {"code": "VALIDATION_ERROR", "message": "...", "details": [...]}}

Codes are a public contract: clients branch on them, so they never change meaning.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_noop

from foundation.messages import known


class ErrorCode(StrEnum):
    VALIDATION_ERROR = "VALIDATION_ERROR"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    FORBIDDEN = "FORBIDDEN"
    UNAUTHORIZED = "UNAUTHORIZED"
    VERSION_CONFLICT = "VERSION_CONFLICT"
    CONFLICT = "CONFLICT"
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
    SECRET_REJECTED = "SECRET_REJECTED"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    RATE_LIMITED = "RATE_LIMITED"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL_ERROR = "INTERNAL_ERROR"


HTTP_STATUS = {
    ErrorCode.VALIDATION_ERROR: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.CONFLICT: 409,  # before VERSION_CONFLICT: the generic code for a bare 409
    ErrorCode.VERSION_CONFLICT: 409,
    ErrorCode.IDEMPOTENCY_CONFLICT: 409,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.SECRET_REJECTED: 422,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.INTERNAL_ERROR: 500,
    ErrorCode.UNAVAILABLE: 503,
}


# The code a door reports for an HTTP failure raised before any service ran (bad route,
# wrong method, framework validation): the first code that maps to that status.
CODE_FOR_STATUS = {}
for _code, _status in HTTP_STATUS.items():
    CODE_FOR_STATUS.setdefault(_status, _code)


class ServiceError(Exception):
    """A failed operation. Raised before anything is written, or inside the transaction
    that is then rolled back, so a failed call leaves the database as it was."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: list[Any] | None = None,
        *,
        params: dict[str, Any] | None = None,
    ):
        # `message` may be a template (`foundation.messages`): the envelope carries it
        # rendered in English, a person's door renders it in their language (`localized`).
        self.template = message
        self.params = dict(params or {})
        if self.params:  # a result that keeps only the English (a bulk row) is still read
            known(message)
        self.message = message % self.params if self.params else message
        super().__init__(self.message)
        self.code = ErrorCode(code)
        self.details = details or []

    @property
    def localized(self) -> str:
        """The message in the active language (for the dashboard; the envelope stays English)."""
        from foundation.messages import localize, translated

        if self.params:
            return translated(self.template, self.params)
        return localize(self.message)

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.code]

    def as_envelope(self) -> dict:
        return envelope(self.code, self.message, self.details)

    @property
    def headers(self) -> dict[str, str]:
        """The HTTP headers every door sends with this error: the bearer challenge of a 401
        (RFC 6750), and Retry-After for a rate limit or an outage."""
        headers = {}
        if challenge := www_authenticate(self):
            headers["WWW-Authenticate"] = challenge
        if (seconds := retry_after_of(self)) is not None:
            headers["Retry-After"] = str(seconds)
        return headers

    def __repr__(self) -> str:
        return f"ServiceError({self.code!s}, {self.message!r})"


# A field or parameter name an error may repeat: what this API's own names look like. Any
# other name a caller sent (a pasted token used as a JSON key or a query parameter) is not
# echoed back into the error, and so not into the caller's logs either.
_NAME_PART = re.compile(r"[a-z][a-z0-9_]{0,39}|[0-9]{1,6}")
HIDDEN_NAME = "(a name not repeated here)"


def shown_name(name: object) -> str:
    """`name` (a field path like `tags.0`) if every part looks like one of ours, else a
    placeholder."""
    text = str(name)
    if text == "" or all(_NAME_PART.fullmatch(part) for part in text.split(".")):
        return text
    return HIDDEN_NAME


def envelope(code, message: str, details: list | None = None) -> dict:
    """The one error shape of every door."""
    return {"error": {"code": str(code), "message": message, "details": details or []}}


REALM = "continuity"


class AuthenticationFailed(ServiceError):
    """UNAUTHORIZED, plus the challenge: `error=` is named only when a credential was sent
    (RFC 6750 §3.1: a request without one gets the bare challenge)."""

    def __init__(self, message: str, *, oauth_error: str | None = None):
        super().__init__(ErrorCode.UNAUTHORIZED, message)
        self.oauth_error = oauth_error

    @property
    def www_authenticate(self) -> str:
        challenge = f'Bearer realm="{REALM}"'
        if self.oauth_error:
            challenge += f', error="{self.oauth_error}"'
        return challenge


def www_authenticate(error: ServiceError) -> str | None:
    """The `WWW-Authenticate` value for an error, or None when it is not an auth failure."""
    if isinstance(error, AuthenticationFailed):
        return error.www_authenticate
    if error.code == ErrorCode.UNAUTHORIZED:
        return f'Bearer realm="{REALM}", error="invalid_token"'
    return None


def retry_after_of(error: ServiceError) -> int | None:
    """The `Retry-After` seconds a RATE_LIMITED error carries, or an outage's fixed wait."""
    if error.code == ErrorCode.UNAVAILABLE:
        return UNAVAILABLE_RETRY_AFTER
    for detail in error.details:
        if isinstance(detail, dict) and "retry_after" in detail:
            return int(detail["retry_after"])
    return None


def validation_error(message: str, *, field: str | None = None, **params) -> ServiceError:
    """`message` may be a template with `params` (`foundation.messages`)."""
    error = ServiceError(ErrorCode.VALIDATION_ERROR, message, params=params)
    if field:
        error.details = [{"field": field, "message": error.message}]
    return error


def not_found(what: str = "memory") -> ServiceError:
    return ServiceError(ErrorCode.NOT_FOUND, NO_SUCH, params={"what": what})


def forbidden(message: str, **params) -> ServiceError:
    return ServiceError(ErrorCode.FORBIDDEN, message, params=params)


NO_SUCH = gettext_noop("No such %(what)s.")
# How a field's check fails, for every app's services: `name` is the field (or parameter).
ONE_OF = gettext_noop("%(name)s must be one of: %(choices)s.")
A_STRING = gettext_noop("%(name)s must be a string.")
NO_NUL = gettext_noop("%(name)s must not contain NUL characters.")
NON_EMPTY = gettext_noop("%(name)s must be a non-empty string.")
PRINTABLE = gettext_noop("%(name)s must be at most %(limit)s printable characters.")
LIST_OF_STRINGS = gettext_noop("%(name)s must be a list of strings.")
AT_MOST_ITEMS = gettext_noop("%(name)s holds at most %(limit)s items.")
EACH_AT_MOST = gettext_noop("each of %(name)s must be at most %(limit)s characters.")
AMONG = gettext_noop("%(name)s must be among: %(choices)s.")
LIMIT_RANGE = gettext_noop("limit must be between 1 and %(limit)s.")


# Seconds a client is told to wait when the database cannot be reached.
UNAVAILABLE_RETRY_AFTER = 5
UNAVAILABLE_MESSAGE = "The database is unavailable; try again in a few seconds."


def unavailable_error(exc: BaseException) -> ServiceError | None:
    """The UNAVAILABLE error for a database that cannot be reached, or None for any other
    exception: the one mapping of an outage, used by every door (agent API, owner API,
    dashboard, MCP tool calls, the ASGI dispatcher). Connection failures and a broken
    connection surface as OperationalError or InterfaceError (which is not a DatabaseError);
    Django reconnects on the next request, so the service recovers on its own when the
    database returns. The wait rides in the details too, for doors without headers (an MCP
    tool error)."""
    from django.db import InterfaceError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):
        return ServiceError(
            ErrorCode.UNAVAILABLE,
            UNAVAILABLE_MESSAGE,
            [{"retry_after": UNAVAILABLE_RETRY_AFTER}],
        )
    return None
