"""Where a browser whose session has expired is sent: to sign in, and afterwards back to
the page it was on.

The page is the one the browser showed, never the address an action posted to (that
answers GET with a 405): htmx names it in `HX-Current-URL`, a plain form post in its
Referer (else the form's `next`, the page it would have returned to). Each is kept only when it is a path on this site, so
the sign-in page never sends anyone elsewhere; without one, the dashboard's first page.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect

from foundation.views import safe_next


def same_site_path(request: HttpRequest, url: str | None) -> str:
    """`url` as a path on this site (an absolute URL only if its origin is this one), or ''."""
    split = urlsplit(url or "")
    if split.scheme or split.netloc:
        if (split.scheme, split.netloc) != (request.scheme, request.get_host()):
            return ""
        split = split._replace(scheme="", netloc="")
    path = urlunsplit(split._replace(fragment=""))
    allowed = path.startswith("/") and url_has_allowed_host_and_scheme(
        path, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return path if allowed else ""


def page_to_return_to(request: HttpRequest) -> str:
    if getattr(request, "htmx", False):
        found = same_site_path(request, request.htmx.current_url)
    elif request.method in ("GET", "HEAD"):
        found = same_site_path(request, request.get_full_path())
    else:
        # The page the form was on (a card's own page, say), else where it would return.
        found = same_site_path(request, request.headers.get("Referer")) or safe_next(request)
    return found or resolve_url(settings.LOGIN_REDIRECT_URL)


def signin_url(request: HttpRequest) -> str:
    return f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': page_to_return_to(request)})}"


def to_sign_in(request: HttpRequest) -> HttpResponse:
    """htmx is told to load the sign-in page as a whole page (`HX-Redirect`), never to
    paste it into the card that asked; a plain request is redirected."""
    if getattr(request, "htmx", False):
        return HttpResponseClientRedirect(signin_url(request))
    return HttpResponseRedirect(signin_url(request))


def asks_to_sign_in(request: HttpRequest, response: HttpResponse) -> bool:
    """Whether `response` is `login_required`'s redirect for this request: to sign in, with
    the request's own address as `next` (a view that merely returns to the sign-in page,
    like the theme switch on it, is left alone)."""
    if response.status_code not in (301, 302, 303) or request.user.is_authenticated:
        return False
    target = urlsplit(response["Location"])
    if target.path != resolve_url(settings.LOGIN_URL):
        return False
    return parse_qs(target.query).get("next") == [request.get_full_path()]
