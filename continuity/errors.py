"""The one error type every service raises, and the envelope every door renders it in.

    {"error": {"code": "VALIDATION_ERROR", "message": "...", "details": [...]}}

Codes are a public contract: clients branch on them, so they never change meaning.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


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

    def __init__(self, code: ErrorCode, message: str, details: list[Any] | None = None):
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.details = details or []

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.code]

    def as_envelope(self) -> dict:
        return {"error": {"code": str(self.code), "message": self.message, "details": self.details}}

    def __repr__(self) -> str:
        return f"ServiceError({self.code!s}, {self.message!r})"


def validation_error(message: str, *, field: str | None = None) -> ServiceError:
    details = [{"field": field, "message": message}] if field else []
    return ServiceError(ErrorCode.VALIDATION_ERROR, message, details)


def not_found(what: str = "memory") -> ServiceError:
    return ServiceError(ErrorCode.NOT_FOUND, f"No such {what}.")


def forbidden(message: str) -> ServiceError:
    return ServiceError(ErrorCode.FORBIDDEN, message)


# Seconds a client is told to wait when the database cannot be reached.
UNAVAILABLE_RETRY_AFTER = 5


def unavailable_error(exc: BaseException) -> ServiceError | None:
    """The UNAVAILABLE error for a database that cannot be reached, or None for any other
    exception. Connection failures and a broken connection surface as OperationalError or
    InterfaceError; Django reconnects on the next request, so the service recovers on its
    own when the database returns."""
    from django.db import InterfaceError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):
        return ServiceError(ErrorCode.UNAVAILABLE, "The database is unavailable; try again shortly.")
    return None
