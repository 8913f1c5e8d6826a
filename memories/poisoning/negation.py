"""A prohibition aimed at people is not an attack: "never send passwords by e-mail",
"不要把 … 发到 …". One rule for every pattern that must not count under a negation. "No
need to ask" and "without telling anyone" permit; they prohibit nothing."""

from __future__ import annotations

import re

NEGATION = re.compile(
    r"(?:\b(?:never|not|don't|do\s+not|doesn't|no(?!\s+need)|avoid|without(?!\s+(?:asking|telling|showing|a\s+word))"
    r"|mustn't|must\s+not|shouldn't|forbidden)\b"
    r"|不要|别|禁止|切勿|不得|不能|严禁|不可|勿|不准)[^.;!?。；！？\n]{0,40}$",
    re.IGNORECASE,
)


def negated(text: str, start: int, window: int = 60) -> bool:
    """Whether a prohibition governs what begins at `start` (within `window` characters)."""
    return bool(NEGATION.search(text[max(0, start - window) : start]))


def unnegated(pattern: re.Pattern, text: str, window: int = 60) -> re.Match | None:
    """The first match of `pattern` that no prohibition governs."""
    for match in pattern.finditer(text):
        if not negated(text, match.start(), window):
            return match
    return None
