"""Fences of text that is not the person's own words and must never be captured.

Continuity wraps every block of memory it injects into a prompt in INJECTION_OPEN ...
INJECTION_CLOSE, so that capture can recognise it wherever an agent records it (inside the
user's prompt, a hook attachment, a developer message) and never feeds remembered text
back into extraction. The injection formatter imports these constants; nothing else may
spell the fence.
"""

from __future__ import annotations

import re

INJECTION_OPEN = "<continuity-memory"  # followed by attributes and ">"
INJECTION_CLOSE = "</continuity-memory>"

# Harness notes Claude Code writes into user lines (file changed, todo reminders).
SYSTEM_REMINDER_OPEN = "<system-reminder>"
SYSTEM_REMINDER_CLOSE = "</system-reminder>"

# An unterminated block (a truncated transcript line) is stripped to the end of the text.
_FENCED = re.compile(
    "|".join(
        f"{re.escape(open_)}.*?(?:{re.escape(close)}|\\Z)"
        for open_, close in (
            (INJECTION_OPEN, INJECTION_CLOSE),
            (SYSTEM_REMINDER_OPEN, SYSTEM_REMINDER_CLOSE),
        )
    ),
    re.DOTALL,
)


def has_injection(text: str) -> bool:
    return INJECTION_OPEN in text


def strip_fenced(text: str) -> str:
    """The text without injected memory blocks and system reminders, trimmed."""
    if "<" not in text:
        return text.strip()
    return _FENCED.sub("", text).strip()
