"""Template helpers of the dashboard: translated labels for stored enum values, and
search terms marked in a memory's text."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import normalize_newlines
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


MAX_MARKED_TERMS = 10


@register.filter
def highlight(text, query) -> SafeString:
    """`text` escaped, with line breaks kept (as `linebreaksbr`) and every occurrence of the
    query's words in `<mark>`, in any case. Words are split on spaces only, so a Chinese
    query (no spaces) is marked as the one phrase Search matched. The pieces are escaped
    one by one, so no mark can open inside an escaped entity or the text's own markup."""
    text = str(text)
    terms = sorted({word for word in str(query or "").split() if word}, key=len, reverse=True)
    if not terms:
        return mark_safe(_breaks(escape(text)))
    pattern = re.compile("|".join(re.escape(term) for term in terms[:MAX_MARKED_TERMS]), re.I)
    pieces, start = [], 0
    for found in pattern.finditer(text):
        pieces += [escape(text[start : found.start()]), f"<mark>{escape(found.group())}</mark>"]
        start = found.end()
    pieces.append(escape(text[start:]))
    return mark_safe(_breaks("".join(pieces)))


@register.filter
def one_line(text) -> str:
    """The text with its line breaks and runs of spaces as single spaces (a row's line)."""
    return " ".join(str(text).split())


def _breaks(html: str) -> str:
    return normalize_newlines(html).replace("\n", "<br>")


@register.filter
def service_text(value):
    """English text a service wrote (an event's reason, a rule's or a job's description, a
    refusal), in the owner's language when it is one of the services' own messages."""
    return localize(str(value)) if value else value
