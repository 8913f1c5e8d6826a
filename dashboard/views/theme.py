"""The theme switch: a plain form post (no JavaScript needed), answered with a redirect
back to the page it came from."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from dashboard.theme import THEMES, theme_remember
from foundation.views import back


@require_POST
def theme_set(request: HttpRequest) -> HttpResponse:
    """`theme` is light, dark or system; anything else changes nothing (400)."""
    theme = request.POST.get("theme", "")
    if theme not in THEMES:
        return HttpResponseBadRequest(_("Unknown theme; choose light, dark or system."))
    response = back(request)
    theme_remember(response, theme)
    return response
