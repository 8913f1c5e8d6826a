"""The canonical format, for any bridge without an adapter of its own (docs/capture.md).

Each item: {"role": "user"|"assistant"|"tool"|"compaction", "text": str,
"item_type"?: "message"|"tool_call"|"tool_result"|"reasoning"|"compaction_summary",
"run_id"?: str, "seq"?: int >= 0, "final"?: bool, "occurred_at"?: ISO-8601}.

A user message without `run_id` opens a run named by a hash of its time and text; with
`run_id`, an item joins (or opens, when the name changes) that run, and `seq`, when given,
is the item's place in it. Tool calls, tool results and reasoning are stored as markers.
"""

from __future__ import annotations

from capture.adapters.base import (
    Parsed,
    Piece,
    Skip,
    identity_of,
    parse_items,
    stable_key,
    timestamp,
)
from capture.markers import has_injection, strip_fenced
from capture.models import ItemType, Role

MAX_RUN_ID_CHARS = 200


class _Reader:
    def __init__(self):
        self.run: str | None = None

    def __call__(self, item, index: int) -> list[Piece]:
        if not isinstance(item, dict):
            raise Skip("invalid")
        role, text = item.get("role"), item.get("text", "")
        item_type = item.get("item_type") or (
            ItemType.COMPACTION_SUMMARY if role == Role.COMPACTION else ItemType.MESSAGE
        )
        run, seq, final = item.get("run_id"), item.get("seq"), item.get("final")
        if (
            role not in Role.values or item_type not in ItemType.values or not isinstance(text, str)
            or (run is not None and (not isinstance(run, str) or not 0 < len(run) <= MAX_RUN_ID_CHARS))
            or (seq is not None and (isinstance(seq, bool) or not isinstance(seq, int) or seq < 0))
            or (final is not None and not isinstance(final, bool))
        ):  # fmt: skip
            raise Skip("invalid")
        at = timestamp(item.get("occurred_at"))
        piece = Piece(role, item_type, strip_fenced(text), at, seq=seq, final=final)
        if piece.is_marker:
            piece.identity = identity_of(item)
        elif not piece.text:
            raise Skip("injected_context" if has_injection(text) else "empty")
        if run is not None and run != self.run:
            piece.opens_run, piece.run_key = True, run
        elif run is None and role == Role.USER and not piece.is_marker:
            piece.opens_run, piece.run_key = True, stable_key(item.get("occurred_at"), piece.text)
        if piece.opens_run:
            self.run = piece.run_key
        return [piece]


def parse(items: list) -> Parsed:
    return parse_items(_Reader(), items)
