"""The owner's view toggle for the memory lists: cards or one line per memory.

A plain form post saves the choice and redirects back; htmx gets `HX-Location` to the same
page, which htmx fetches and swaps into `#main` (so the tab bar and focus stay put). Every
memory list follows it: the memory tabs, Projects, Search and Review's memory sections.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseLocation

from dashboard.preferences import memory_view_set
from foundation.errors import ServiceError
from foundation.htmx import refused
from foundation.views import back, owner_actor, safe_next


@login_required
@require_POST
def memory_view(request: HttpRequest) -> HttpResponse:
    try:
        memory_view_set(actor=owner_actor(request), view=request.POST.get("view"))
    except ServiceError as error:
        if request.htmx:
            return refused(request, error)
        messages.error(request, error.message)
        return back(request)
    if request.htmx:
        # The address the page shows now, not the form's `next`: live search pushes its
        # query to the address after the toggle was rendered (django-htmx keeps it ours).
        here = request.htmx.current_url_abs_path or safe_next(request) or "/"
        return HttpResponseLocation(here, target="#main", select="#main", swap="outerHTML")
    return back(request)
