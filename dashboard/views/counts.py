"""The tab counts, for the tab bar to re-fetch when an answer announces `counts-changed`
(`foundation.htmx`): the one place the numbers are rendered after a change."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from foundation.htmx import answer


@login_required
@require_GET
def counts(request: HttpRequest) -> HttpResponse:
    """Every tab's count, each swapped into the tab bar out of band (by its id)."""
    return answer(request, "dashboard/_counts.html", {"oob": True})
