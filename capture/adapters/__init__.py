"""Adapters: one module per source format, each turning a batch's raw items into canonical
events (`base.Event`). `parse(source, items)` picks the source's adapter."""

from __future__ import annotations

from collections.abc import Callable

from capture.adapters import claude_code, codex, generic, memorycenter, text
from capture.adapters.base import Event, Parsed, parse_items
from capture.models import Source

ADAPTERS: dict[str, Callable[[list], Parsed]] = {
    Source.CLAUDE_CODE: lambda items: parse_items(claude_code.read, items),
    Source.CODEX: lambda items: parse_items(codex.read, items),
    Source.MEMORYCENTER: lambda items: parse_items(memorycenter.read, items),
    Source.TEXT: text.parse,
    Source.GENERIC: generic.parse,
}


def parse(source: str, items: list) -> Parsed:
    return ADAPTERS[source](items)


__all__ = ["ADAPTERS", "Event", "Parsed", "parse"]
