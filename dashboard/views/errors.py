"""The pages for an address that leads nowhere and for a form that no longer holds (the
agent and owner APIs answer their own errors in their envelope, before these are reached)."""

from __future__ import annotations

from django.shortcuts import render
from django.views.csrf import csrf_failure as django_csrf_failure

from dashboard.signin import page_to_return_to, to_sign_in
from foundation.htmx import answer


def not_found(request, exception=None):
    """A styled page for a browser; for an htmx request, one line in the place it targets
    (a whole page pasted into a card would hide the dashboard)."""
    template = "dashboard/_not_found.html" if getattr(request, "htmx", False) else "404.html"
    return render(request, template, status=404)


def csrf_failure(request, reason: str = ""):
    """A post whose CSRF token no longer holds. Mostly the session is gone with it (the
    cookies were cleared, or the owner signed out elsewhere): that is sent to sign in and
    back, like an expired session. A signed-in owner on a page opened before their last
    sign-in is told to reload it, in place under htmx. Nothing was changed either way.
    The admin keeps Django's own page."""
    if getattr(request.resolver_match, "app_name", "") == "admin":
        return django_csrf_failure(request, reason)
    if not request.user.is_authenticated:
        return to_sign_in(request)
    context = {"back": page_to_return_to(request), "tab": ""}
    return answer(request, "dashboard/stale_form.html", context, fragment="message", status=403)
