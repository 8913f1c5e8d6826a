"""Fences of text that is not the person's own words and must never be captured.

Continuity wraps every block of memory it injects into a prompt in INJECTION_OPEN ...
INJECTION_CLOSE, so that capture can recognise it wherever an agent records it (inside the
user's prompt, a hook attachment, a developer message) and never feeds remembered text
back into extraction. The injection formatter imports these constants; nothing else may
spell the fence.

Other tools inject context too (memory plug-ins, editor rules). Their fences are pairs of
plain strings: the instance's `CONTINUITY_CAPTURE_STRIP_MARKERS` plus each owner's own list
(`StripMarker` rows). The capture pipeline's parse step puts the owner's pairs in force
with `stripping(...)`, so every adapter strips them through the same `strip_fenced` call
without each adapter being handed the owner.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from django.utils.translation import gettext_noop

from foundation.messages import known, rendered

INJECTION_OPEN = "<continuity-memory"  # followed by attributes and ">"
INJECTION_CLOSE = "</continuity-memory>"

# Harness notes Claude Code writes into user lines (file changed, todo reminders).
SYSTEM_REMINDER_OPEN = "<system-reminder>"
SYSTEM_REMINDER_CLOSE = "</system-reminder>"

BUILT_IN = ((INJECTION_OPEN, INJECTION_CLOSE), (SYSTEM_REMINDER_OPEN, SYSTEM_REMINDER_CLOSE))

# Bounds of one configured pair and of an owner's list (the settings page and the owner
# API enforce them; the environment's list is checked when settings load).
MAX_MARKER_CHARS = 100
MAX_OWNER_MARKERS = 50

Pair = tuple[str, str]

# The foreign pairs in force (settings plus the owner's); None outside the parse step, where
# the instance's setting alone applies.
_in_force: ContextVar[tuple[Pair, ...] | None] = ContextVar("capture_strip_markers", default=None)


def marker_problem(start: str, end: str) -> tuple[str, str] | None:
    """Why a (start, end) pair cannot be a fence, as (side, message), or None when it can."""
    for side, value in (("start", start), ("end", end)):
        empty, long, spaced = PROBLEMS[side]
        if not value:
            return side, empty
        if len(value) > MAX_MARKER_CHARS:
            return side, rendered(long, n=MAX_MARKER_CHARS)
        if any(ch in value for ch in "\r\n\t") or value != value.strip():
            return side, spaced
    return None


# English, as the agent API and settings checks say it; the dashboard shows it translated.
PROBLEMS = {
    "start": (
        gettext_noop("The start marker must not be empty."),
        known(gettext_noop("The start marker must be at most %(n)s characters.")),
        gettext_noop("The start marker must be one line without surrounding spaces."),
    ),
    "end": (
        gettext_noop("The end marker must not be empty."),
        known(gettext_noop("The end marker must be at most %(n)s characters.")),
        gettext_noop("The end marker must be one line without surrounding spaces."),
    ),
}


def configured_pairs() -> tuple[Pair, ...]:
    from django.conf import settings

    return tuple(tuple(pair) for pair in settings.CONTINUITY_CAPTURE_STRIP_MARKERS)


@contextmanager
def stripping(pairs: Iterable[Pair]) -> Iterator[None]:
    """Within the block, `strip_fenced` also strips these foreign pairs (and not the
    instance's setting, which the caller includes if it wants it)."""
    token = _in_force.set(tuple(pairs))
    try:
        yield
    finally:
        _in_force.reset(token)


@lru_cache(maxsize=64)
def _fence(pairs: tuple[Pair, ...]) -> re.Pattern:
    # An unterminated block of Continuity's own or a system reminder (a truncated transcript
    # line) is stripped to the end of the text: dropping a few of the person's words is
    # better than capturing injected ones. A foreign start marker with no end is kept: it
    # may be the person writing about the tag ("add a <memory> element to the schema").
    ends = {pair: r"|\Z" if pair in BUILT_IN else "" for pair in pairs}
    return re.compile(
        "|".join(
            f"{re.escape(open_)}.*?(?:{re.escape(close)}{ends[open_, close]})"
            for open_, close in pairs
        ),
        re.DOTALL,
    )


def has_injection(text: str) -> bool:
    return INJECTION_OPEN in text


def strip_fenced(text: str) -> str:
    """The text without injected memory blocks, system reminders and the foreign fences in
    force, trimmed."""
    foreign = _in_force.get()
    if foreign is None:
        foreign = configured_pairs()
    pairs = tuple(dict.fromkeys((*BUILT_IN, *foreign)))
    if not any(open_ in text for open_, _close in pairs):
        return text.strip()
    return _fence(pairs).sub("", text).strip()
