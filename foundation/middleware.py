"""Door-wide guards for every Django request: a database outage answers 503, and input
carrying a NUL character is refused with 400 — the envelope under /api/, a short page
elsewhere.

The agent API and the owner API render an outage themselves (their exception handlers call
`unavailable_error`); the middleware covers every other Django view — the dashboard, the
admin, sign-in. Its page is standalone: the site's base template reads the signed-in user,
which needs the very database that is missing.
"""

from __future__ import annotations

import logging
import re

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from foundation.errors import ErrorCode, unavailable_error

logger = logging.getLogger(__name__)


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        error = unavailable_error(exception)
        if error is None:
            return None
        logger.warning("database unavailable in %s %s: %s", request.method, request.path, exception)
        if request.path.startswith("/api/"):
            from foundation.ninja_door import service_error_response

            response = service_error_response(error)
        else:
            page = render_to_string("unavailable.html", {"message": error.message})
            response = HttpResponse(page, status=503)
            for name, value in error.headers.items():
                response[name] = value
        return response


# A NUL character as it reaches us: raw, as a JSON escape (not an escaped backslash followed
# by "u0000"), or percent-encoded in a query string or form.
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_TEXT_BODIES = ("application/json", "application/x-www-form-urlencoded", "text/plain")


class RejectNulMiddleware:
    """Refuse any request that carries a NUL character (U+0000) with a 400.

    PostgreSQL cannot store NUL in text or JSON, so such input would fail deep in a query;
    no memory, query or capture legitimately needs one. Refused at the door, before any
    view runs, so nothing is half-written: the envelope under /api/, a short page elsewhere.
    The owner API is left to DRF, whose fields refuse NUL themselves and name the field;
    uploads (multipart) are binary and not read here.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/owner/"):
            return self.get_response(request)
        query = request.META.get("QUERY_STRING", "")
        if (
            "%00" in query
            or "\x00" in query
            or "\x00" in request.path
            or self._body_has_nul(request)
        ):
            return self._refuse(request)
        return self.get_response(request)

    @staticmethod
    def _body_has_nul(request: HttpRequest) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS") or request.content_type not in _TEXT_BODIES:
            return False
        try:
            body = request.body
        except Exception:  # noqa: BLE001 - too large or unreadable: the views answer that
            return False
        if b"\x00" in body or _JSON_NUL.search(body):
            return True
        return request.content_type == "application/x-www-form-urlencoded" and b"%00" in body

    @staticmethod
    def _refuse(request: HttpRequest) -> HttpResponse:
        message = "The request contains a NUL character (U+0000), which cannot be stored."
        if request.path.startswith("/api/"):
            from foundation.ninja_door import error_response

            return error_response(400, ErrorCode.VALIDATION_ERROR, message)
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
