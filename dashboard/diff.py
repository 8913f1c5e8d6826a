"""The words that differ between two statements, marked for Review's conflict cards.

Latin-script text is compared word by word; CJK text has no spaces between words, so each
CJK character is a token of its own (a one-character change, 不 in 我们不使用, is marked as
that character, not as the whole run). Every token is escaped before it is marked.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# Han, kana, Hangul syllables and the CJK compatibility ideographs.
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN = re.compile(rf"[{CJK}]|[^\W{CJK}]+|\s+|[^\w\s]")
MAX_DIFF_CHARS = 4000  # a memory's content is at most this long; longer input is cut


def tokens(text: str) -> list[str]:
    """Words, single CJK characters, runs of space and single punctuation marks; joined
    again they give back `text` exactly."""
    return TOKEN.findall(text[:MAX_DIFF_CHARS])


def _marked(parts: list[str], tag: str) -> str:
    text = "".join(parts)
    if not text.strip():
        return escape(text)
    return f'<{tag} class="diff">{escape(text)}</{tag}>'


def word_diff(old: str, new: str) -> tuple[SafeString, SafeString]:
    """(old with what the new one drops in <del>, new with what it adds in <mark>)."""
    before, after = tokens(old), tokens(new)
    old_html, new_html = [], []
    matcher = SequenceMatcher(a=before, b=after, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            old_html.append(escape("".join(before[i1:i2])))
            new_html.append(escape("".join(after[j1:j2])))
            continue
        if i2 > i1:
            old_html.append(_marked(before[i1:i2], "del"))
        if j2 > j1:
            new_html.append(_marked(after[j1:j2], "mark"))
    return mark_safe("".join(old_html)), mark_safe("".join(new_html))  # noqa: S308 - escaped above
