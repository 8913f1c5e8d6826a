"""Capsule states and task statuses in the owner's language."""

from django import template
from django.utils.translation import pgettext_lazy

register = template.Library()

LABELS = {
    "active": pgettext_lazy("handoff state", "active"),
    "open": pgettext_lazy("handoff state", "open"),
    "resumed": pgettext_lazy("handoff state", "resumed"),
    "expired": pgettext_lazy("handoff state", "expired"),
    "in_progress": pgettext_lazy("task status", "in progress"),
    "blocked": pgettext_lazy("task status", "blocked"),
    "needs_review": pgettext_lazy("task status", "needs review"),
    "done": pgettext_lazy("task status", "done"),
}


@register.filter
def handoff_label(value) -> str:
    return LABELS.get(str(value), value)
