"""Fabricated capture fixtures (tests/fixtures/capture/) as the items a client would send."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "capture"


def jsonl(name: str) -> list:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def items_of(source: str) -> list:
    return {
        "claude_code": lambda: jsonl("claude_code.jsonl"),
        "codex": lambda: jsonl("codex.jsonl"),
        "memorycenter": lambda: json.loads((FIXTURES / "memorycenter.json").read_text()),
        "text": lambda: [(FIXTURES / "conversation.txt").read_text()],
        "generic": lambda: json.loads((FIXTURES / "generic.json").read_text()),
    }[source]()
