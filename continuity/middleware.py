"""A database outage answers 503, in the envelope under /api/ and as a short page elsewhere.

The agent API and the owner API render it themselves (their exception handlers call
`unavailable_error`); this covers every other Django view — the dashboard, the admin,
sign-in. The page is standalone: the site's base template reads the signed-in user, which
needs the very database that is missing.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from continuity.errors import UNAVAILABLE_RETRY_AFTER, unavailable_error

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
            from continuity.api_errors import service_error_response

            response = service_error_response(error)
        else:
            response = HttpResponse(render_to_string("unavailable.html"), status=503)
        response["Retry-After"] = str(UNAVAILABLE_RETRY_AFTER)
        return response
