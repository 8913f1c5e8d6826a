"""An htmx request whose session has expired is sent to sign in, not answered in place."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.shortcuts import resolve_url
from django_htmx.http import HttpResponseClientRedirect


class HtmxSignInMiddleware:
    """A dashboard action sent by htmx after the session expired was answered with a
    redirect to the sign-in page, which htmx followed and pasted into the card it targets.
    The browser is sent to sign in instead, and back to the page it was on afterwards."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not getattr(request, "htmx", False) or response.status_code not in (301, 302, 303):
            return response
        signin = resolve_url(settings.LOGIN_URL)
        if urlsplit(response["Location"]).path != signin:
            return response
        back = request.htmx.current_url_abs_path or resolve_url(settings.LOGIN_REDIRECT_URL)
        return HttpResponseClientRedirect(f"{signin}?{urlencode({'next': back})}")
