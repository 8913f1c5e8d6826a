"""Template helpers of the dashboard: translated labels for stored enum values."""

from django import template
from django.utils.translation import gettext_lazy as _

from foundation.messages import localize

register = template.Library()

# Stored values (trust, status, kinds, event types, scopes) shown in the owner's language.
LABELS = {
    "inferred": _("inferred"), "observed": _("observed"), "confirmed": _("confirmed"),
    "locked": _("locked"), "active": _("active"), "disputed": _("disputed"),
    "archived": _("archived"), "superseded": _("superseded"),
    "semantic": _("semantic"), "episodic": _("episodic"), "procedural": _("procedural"),
    "preference": _("preference"), "fact": _("fact"), "decision": _("decision"),
    "constraint": _("constraint"), "entity": _("entity"), "event": _("event"),
    "outcome": _("outcome"), "lesson": _("lesson"), "procedure": _("procedure"),
    "task_state": _("task state"), "global": _("global"), "project": _("project"),
    "task": _("task"), "agent": _("agent"), "created": _("created"), "replaced": _("replaced"),
    "merged": _("merged"), "unlocked": _("unlocked"), "corrected": _("corrected"),
    "restored": _("restored"), "linked": _("linked"), "deleted": _("deleted"),
    "supersedes": _("supersedes"), "contradicts": _("contradicts"), "supports": _("supports"),
    "derived_from": _("derived from"), "related_to": _("related to"),
    "duplicates": _("duplicates"), "shared": _("shared"), "private": _("private"),
    "memories:read": _("Read memories"), "memories:write": _("Write memories"),
    "capture:write": _("Send captured conversations"), "handoff": _("Create and resume handoffs"),
    "private:read": _("Read private memories"),
}  # fmt: skip


@register.filter
def label(value) -> str:
    return LABELS.get(str(value), value)


@register.filter
def service_text(value):
    """English text a service wrote (an event's reason, a rule's or a job's description, a
    refusal), in the owner's language when it is one of the services' own messages."""
    return localize(str(value)) if value else value
