"""Redaction of captured text before it is stored (DESIGN §1.3).

The rules are the write gate's (`memories.gates.SECRET_RULES`): one definition of what a
credential or a personal number looks like, so what the remember gate refuses is exactly
what capture blanks out. Each finding becomes `[REDACTED:<rule>]`; the event keeps only the
sha256 of the original text, so the original is never needed again (fingerprints are
computed on the redacted text).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

from memories.gates import may_hold_secret
from memories.gates import redact as redact_secrets

# What a redacted span becomes (memories.gates.redact): "[REDACTED:card_number]".
REDACTION_MASK = re.compile(r"\[REDACTED:([a-z_]+)\]")


@dataclass(frozen=True)
class Redacted:
    text: str
    counts: dict[str, int]
    original_sha256: str


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def redact(text: str) -> Redacted:
    """The text with every credential and personal number replaced, per-rule counts, and
    the hash of the original."""
    original = sha256_text(text)
    if not may_hold_secret(text):
        return Redacted(text, {}, original)
    redacted, counts = redact_secrets(text)
    return Redacted(redacted, counts, original)


def redact_items(items: list) -> tuple[list, Counter]:
    """Raw items with every string in them redacted, and the per-rule counts: what a batch
    stores before any worker sees it, so no credential is kept even for a moment, whether
    the batch is later processed, retried or failed."""
    counts: Counter = Counter()

    def clean(node):
        if isinstance(node, str):
            found = redact(node)
            counts.update(found.counts)
            return found.text
        if isinstance(node, list):
            return [clean(child) for child in node]
        if isinstance(node, dict):
            return {key: clean(value) for key, value in node.items()}
        return node

    return [clean(item) for item in items], counts
