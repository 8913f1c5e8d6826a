"""Service messages in the owner's language.

A service writes its messages in English from a template and parameters
(`rendered(gettext_noop("No such %(what)s."), what="memory")`): the agent API, MCP and logs
keep that English. A door for a person (the dashboard) renders the same template through gettext
with the same parameters, so a Chinese page shows Chinese; `localize` does it for an error
(`ServiceError.template`/`params`) and, by matching the registered templates, for English
text that was stored already rendered (an event's reason, a job's description).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.utils.translation import gettext, gettext_noop

# Words services pass as parameters (`not_found(what)`, `require_owner(action)`), so a
# translated sentence does not carry an English noun.
WORDS = (
    gettext_noop("memory"), gettext_noop("candidate"), gettext_noop("strip marker"),
    gettext_noop("memory to replace"), gettext_noop("token"), gettext_noop("handoff"),
    gettext_noop("never-remember pattern"), gettext_noop("rejection"), gettext_noop("proposal"),
    gettext_noop("capture batch"), gettext_noop("capture thread"), gettext_noop("action to undo"),
)  # fmt: skip

_PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
_PATTERNS: dict[str, re.Pattern] = {}


def known(template: str) -> str:
    """Register a template with parameters so `localize` can recognise text rendered from
    it; returns the template unchanged."""
    if _PLACEHOLDER.search(template) and template not in _PATTERNS:
        pieces = _PLACEHOLDER.split(template)
        regex = "".join(
            re.escape(piece) if index % 2 == 0 else f"(?P<{piece}>.+?)"
            for index, piece in enumerate(pieces)
        )
        _PATTERNS[template] = re.compile(regex + r"\Z", re.S)
    return template


def rendered(template: str, **params: object) -> str:
    """The English message: the template with its parameters filled in."""
    return template % params if params else template


def translated(template: str, params: Mapping[str, object] | None = None) -> str:
    """The template in the active language; parameters that are words of ours (a noun, a
    trust level) are translated too, identifiers and numbers stay as they are."""
    if not params:
        return gettext(template)
    shown = {
        name: gettext(value) if isinstance(value, str) else value for name, value in params.items()
    }
    return gettext(template) % shown


def localize(message: str) -> str:
    """English service text, in the active language: a plain msgid, else the registered
    template it was rendered from, else unchanged (an owner's own words stay as typed)."""
    if not message:
        return message
    own = gettext(message)
    if own != message:
        return own
    for template, pattern in _PATTERNS.items():
        if match := pattern.match(message):
            return translated(template, match.groupdict())
    return message
