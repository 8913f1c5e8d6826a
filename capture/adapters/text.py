"""Plain conversation text: lines labelled `User:` / `Assistant:` (and 用户： / 助手：, ...).

Items are strings, read as one text in order; a labelled line starts a message and the
lines after it continue that message. Each user message opens a run, named by a hash of
its text and how often the same text came before in the batch (plain text carries no ids
or times, so the same conversation re-sent is recognised, and "continue" typed twice is
two runs). Text before the first label is skipped as `unlabelled`.
"""

from __future__ import annotations

import re
from collections import Counter

from capture.adapters.base import Parsed, Piece, assemble, stable_key
from capture.markers import strip_fenced
from capture.models import Role

_USER = "user|human|you|me|用户|我|提问|问"
_ASSISTANT = "assistant|ai|bot|model|claude|codex|gpt|助手|机器人|模型|回答|答"
_LABEL = re.compile(
    rf"^\s*(?:(?P<user>{_USER})|(?P<assistant>{_ASSISTANT}))\s*[:：]\s?", re.IGNORECASE
)


def parse(items: list) -> Parsed:
    parsed = Parsed()
    lines: list[str] = []
    for item in items:
        if isinstance(item, str):
            lines += item.splitlines()
        else:
            parsed.skipped["invalid"] += 1
    messages: list[tuple[str, list[str]]] = []
    unlabelled = False
    for line in lines:
        label = _LABEL.match(line)
        if label:
            role = Role.USER if label["user"] else Role.ASSISTANT
            messages.append((role, [line[label.end() :]]))
        elif messages:
            messages[-1][1].append(line)
        elif line.strip():
            unlabelled = True
    if unlabelled:
        parsed.skipped["unlabelled"] += 1
    seen: Counter = Counter()
    pieces = []
    for role, body in messages:
        text = strip_fenced("\n".join(body))
        if not text:
            parsed.skipped["empty"] += 1
            continue
        if role == Role.USER:
            seen[text] += 1
            pieces.append(
                Piece(Role.USER, text=text, opens_run=True, run_key=stable_key(text, seen[text]))
            )
        else:
            pieces.append(Piece(Role.ASSISTANT, text=text))
    parsed.events = assemble(pieces)
    return parsed
