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

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext_noop

from foundation.errors import ServiceError, unavailable_error, validation_error
from foundation.input_guard import body_problem

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


# A NUL character as it reaches us in a query string, a path or a form: raw or percent-encoded.
_FORM_BODIES = ("application/x-www-form-urlencoded", "text/plain")
NUL_MESSAGE = gettext_noop("The request contains a NUL character (U+0000), which cannot be stored.")


class InputGuardMiddleware:
    """Refuse, with a 400 and before any view runs, input no door can store or parse safely
    (foundation.input_guard): a NUL character anywhere (PostgreSQL cannot store U+0000), and
    in a JSON body also unpaired surrogates, nesting past the bound, integers past 2^53 and
    NaN. Nothing is half-written: the envelope under /api/, a short page elsewhere.

    Every body an API door reads as JSON is checked, whatever its Content-Type says (the
    agent API parses a body sent as text/plain too); uploads (multipart) are binary and not
    read here.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        error = self._problem(request)
        if error is not None:
            return self._refuse(request, error)
        return self.get_response(request)

    @staticmethod
    def _problem(request: HttpRequest) -> ServiceError | None:
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in request.path:
            return validation_error(NUL_MESSAGE)
        if "%00" in query or "\x00" in query:
            named = [
                name for name, values in request.GET.lists() if any("\x00" in v for v in values)
            ]
            return validation_error(NUL_MESSAGE, field=named[0] if named else None)
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if request.content_type.startswith("multipart/"):
            return None
        try:
            body = request.body
        except Exception:  # noqa: BLE001 - too large or unreadable: the views answer that
            return None
        if not body:
            return None
        if request.path.startswith("/api/") and (
            request.content_type == "application/json" or request.path.startswith("/api/v1/")
        ):
            return body_problem(body)
        if b"\x00" in body or (request.content_type in _FORM_BODIES and b"%00" in body):
            return validation_error(NUL_MESSAGE)
        return None

    @staticmethod
    def _refuse(request: HttpRequest, error: ServiceError) -> HttpResponse:
        if request.path.startswith("/api/"):
            from foundation.ninja_door import service_error_response

            return service_error_response(error)
        return HttpResponse(error.message, status=400, content_type="text/plain; charset=utf-8")
