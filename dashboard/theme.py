"""The dashboard's colour theme: light, dark, or the system's (`prefers-color-scheme`).

The choice lives in a cookie, so it also holds on the sign-in page and needs no account
row; every page renders it on `<html data-theme=...>` server-side, so there is no flash of
the other theme before a script could run."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

COOKIE = "continuity_theme"
SYSTEM = "system"
THEMES = {"light": _("Light"), "dark": _("Dark"), SYSTEM: _("System")}
COOKIE_AGE = 365 * 24 * 3600


def theme_of(request: HttpRequest) -> str:
    """The theme the cookie names, or `system` for none or an unknown value."""
    value = request.COOKIES.get(COOKIE, SYSTEM)
    return value if value in THEMES else SYSTEM


def theme_remember(response: HttpResponse, theme: str) -> None:
    """Store the choice (`system` clears it: following the system is the default)."""
    if theme == SYSTEM:
        response.delete_cookie(COOKIE, samesite="Lax")
        return
    response.set_cookie(
        COOKIE, theme, max_age=COOKIE_AGE, samesite="Lax", httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
    )  # fmt: skip


def theme_context(request: HttpRequest) -> dict:
    """TEMPLATES context processor: the current `theme` and the `themes` to pick from."""
    return {"theme": theme_of(request), "themes": THEMES}
