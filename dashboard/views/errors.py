"""The page for an address that leads nowhere (the agent and owner APIs answer their own
404s in their error envelope, before this is reached)."""

from __future__ import annotations

from django.shortcuts import render


def not_found(request, exception=None):
    """A styled page for a browser; for an htmx request, one line in the place it targets
    (a whole page pasted into a card would hide the dashboard)."""
    template = "dashboard/_not_found.html" if getattr(request, "htmx", False) else "404.html"
    return render(request, template, status=404)
