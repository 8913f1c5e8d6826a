"""One envelope for every failure of the agent API (DESIGN §5):

    {"error": {"code": "VALIDATION_ERROR", "message": "...", "details": [...]}}

Service errors, ninja's validation errors, authentication, malformed JSON, oversized
bodies, unknown routes, wrong methods, rate limits and unexpected exceptions alike. Routers
import the response schemas from here (not from `continuity.api`, which imports them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError

from foundation.errors import (
    CODE_FOR_STATUS,
    REALM,
    ErrorCode,
    ServiceError,
    envelope,
    shown_name,
    unavailable_error,
)

logger = logging.getLogger(__name__)

API_PREFIX = "/api/v1/"
STATUS_MESSAGES = {
    400: "The request is not valid.",
    401: "This endpoint needs an access token.",
    403: "This request is not allowed.",
    404: "No such resource.",
    405: "This method is not allowed here.",
    413: "The request body is too large.",
    500: "Something went wrong on our side; the error has been logged.",
}


class ErrorBody(Schema):
    code: str
    message: str
    details: list[Any]


class ErrorOut(Schema):
    error: ErrorBody


# Documented error answers, for a route's `response=`. Every route can fail these ways.
READ_ERRORS = {frozenset({400, 401, 403, 404, 429, 500, 503}): ErrorOut}
WRITE_ERRORS = {frozenset({400, 401, 403, 404, 409, 413, 422, 429, 500, 503}): ErrorOut}


def error_response(
    status: int, code: str, message: str, details: list | None = None, headers: dict | None = None
) -> JsonResponse:
    return JsonResponse(
        envelope(code, message, details),
        status=status,
        headers=headers,
        json_dumps_params={"ensure_ascii": False},
    )


def status_error_response(status: int, message: str | None = None, headers=None) -> JsonResponse:
    default = ErrorCode.INTERNAL_ERROR if status >= 500 else ErrorCode.VALIDATION_ERROR
    return error_response(
        status,
        CODE_FOR_STATUS.get(status, default),
        message or STATUS_MESSAGES.get(status, "The request failed."),
        headers=headers,
    )


def service_error_response(error: ServiceError) -> JsonResponse:
    return error_response(
        error.http_status, error.code, error.message, error.details, error.headers
    )


def _field_path(loc) -> tuple[str, str]:
    """ninja reports ("body", "payload", "kind") or ("query", "limit"): split off where the
    value came from, and drop the handler's own parameter name, meaningless to a client."""
    location, *path = [str(part) for part in loc] or ["body"]
    if location == "body" and len(path) > 1:
        path = path[1:]
    return location, shown_name(".".join(path))


def validation_error_response(error: ValidationError) -> JsonResponse:
    details = []
    for item in error.errors:
        location, field = _field_path(item.get("loc", ()))
        details.append(
            {
                "field": field,
                "location": location,
                "message": item.get("msg", ""),
                "type": item.get("type", ""),
            }
        )
    summary = "; ".join(f"{d['field'] or d['location']}: {d['message']}" for d in details[:3])
    more = f" (and {len(details) - 3} more)" if len(details) > 3 else ""
    return error_response(
        400, ErrorCode.VALIDATION_ERROR, f"The request is not valid: {summary}{more}", details
    )


def http_error_response(error: HttpError) -> JsonResponse:
    """ninja's own HttpErrors: an unreadable body comes wrapped in one (400)."""
    cause = error.__cause__
    if isinstance(cause, RequestDataTooBig):
        return status_error_response(413)
    if isinstance(cause, ValueError):  # json.JSONDecodeError and UnicodeDecodeError are
        detail = {"field": "", "location": "body", "message": str(cause), "type": "json_invalid"}
        return error_response(
            400, ErrorCode.VALIDATION_ERROR, "The request body is not valid JSON.", [detail]
        )
    if isinstance(error, AuthenticationError):
        return status_error_response(401, headers={"WWW-Authenticate": f'Bearer realm="{REALM}"'})
    return status_error_response(error.status_code, str(error) or None)


def refuse_unknown_parameters(request: HttpRequest, known) -> None:
    """ninja ignores query parameters it does not know; a misspelt one (`kind` for `kinds`)
    would silently change the answer, so it is refused like an unknown body field."""
    unknown = sorted({shown_name(name) for name in set(request.GET) - set(known)})
    if unknown:
        raise ServiceError(
            ErrorCode.VALIDATION_ERROR,
            f"Unknown query parameter(s): {', '.join(unknown)}.",
            [
                {
                    "field": name,
                    "location": "query",
                    "message": "Unknown parameter.",
                    "type": "extra_forbidden",
                }
                for name in unknown
            ],
        )


def install_error_handlers(
    api: NinjaAPI, on_refusal: Callable[[HttpRequest, ServiceError], None] | None = None
) -> None:
    """`on_refusal(request, error)` hears of every service error a route raised (the floor
    that owns tokens notes the ones their owner must see)."""

    @api.exception_handler(ServiceError)
    def on_service_error(request: HttpRequest, exc: ServiceError) -> HttpResponse:
        if on_refusal is not None:
            on_refusal(request, exc)
        return service_error_response(exc)

    @api.exception_handler(ValidationError)
    def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        return validation_error_response(exc)

    @api.exception_handler(HttpError)
    def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return http_error_response(exc)

    @api.exception_handler(SuspiciousOperation)
    def on_suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
        # Raised by Django while reading the request: an oversized body, too many fields.
        return status_error_response(413 if isinstance(exc, RequestDataTooBig) else 400)

    @api.exception_handler(Http404)
    def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return status_error_response(404)

    @api.exception_handler(Exception)
    def on_unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
        if unavailable := unavailable_error(exc):
            logger.warning("database unavailable in %s %s: %s", request.method, request.path, exc)
            return service_error_response(unavailable)
        # Logged with its traceback; the client learns only that it was our fault.
        logger.exception("unexpected error in %s %s", request.method, request.path)
        return status_error_response(500)


class ApiErrorMiddleware:
    """Some answers are made before any handler above runs: unknown routes (Django's URL
    resolver), wrong methods (ninja's path view), a refused Host header (Django's
    CommonMiddleware). Listed first in MIDDLEWARE, this rewrites those answers, and any other
    non-JSON error page, into the envelope, keeping their headers (Allow, security headers).
    It touches only responses under /api/v1/ and requests under /api/ that matched no route,
    so other API doors keep their own error pages."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code < 400 or response.get("Content-Type", "").startswith(
            "application/json"
        ):
            return response
        ours = request.path.startswith(API_PREFIX)
        unrouted = (
            request.path.startswith("/api/") and getattr(request, "resolver_match", None) is None
        )
        if not (ours or unrouted):
            return response
        enveloped = status_error_response(response.status_code)
        for name, value in response.items():
            if name.lower() not in ("content-type", "content-length"):
                enveloped[name] = value
        return enveloped
