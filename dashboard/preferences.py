"""The owner's dashboard preferences: how the memory lists are shown (cards or rows).

Stored per owner on the server, so the choice follows them to another browser and works
without JavaScript or cookies of its own.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from dashboard.models import DashboardPreference, MemoryView
from foundation.actors import Actor
from foundation.errors import validation_error


def memory_view_of(user) -> str:
    """'cards' (the default) or 'rows'."""
    found = (
        DashboardPreference.objects.filter(owner=user).values_list("memory_view", flat=True).first()
    )
    return found or MemoryView.CARDS


def memory_view_set(*, actor: Actor, view) -> str:
    """Owner-only. Remember how this owner's memory lists are shown. Idempotent."""
    actor.require_owner(gettext_noop("change the dashboard's view"))
    if view not in MemoryView.values:
        raise validation_error(_("Choose cards or rows."), field="view")
    DashboardPreference.objects.update_or_create(
        owner=actor.user, defaults={"memory_view": view, "updated_at": timezone.now()}
    )
    return view
