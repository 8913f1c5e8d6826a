"""What every adapter produces, and the assembly shared by all of them.

An adapter reads one raw item at a time and says what it holds as `Piece`s (or why it is
skipped). `assemble` turns the pieces of a batch into canonical events: it numbers them
within their run, and marks the final assistant reply of each run.

Runs. A genuine user prompt opens a run, named by something stable in the item itself (a
line uuid, a turn id, or a hash of its timestamp and text), so re-sending or trimming a
transcript yields the same (run, seq) for the same item. Pieces before the batch's first
prompt continue a run begun in an earlier batch: they come out with `run_id=None` and
`seq` counted from 0, and the ledger places them after what it already holds of that run.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from django.utils.dateparse import parse_datetime

from capture.models import ItemType, Role


@dataclass
class Piece:
    role: str
    item_type: str = ItemType.MESSAGE
    text: str = ""
    occurred_at: datetime | None = None
    opens_run: bool = False  # a genuine user prompt
    run_key: str = ""  # the run's name, when it opens one (or the source gives it)
    final: bool | None = None  # the source says whether this is the turn's final reply
    seq: int | None = None  # the source's own sequence within the run (generic format)
    identity: str = ""  # for markers: what identifies the item, as the text does for messages

    @property
    def is_marker(self) -> bool:
        return self.item_type in (ItemType.TOOL_CALL, ItemType.TOOL_RESULT, ItemType.REASONING)


class Skip(Exception):
    """Raised by an adapter for an item that holds nothing to capture; the reason is counted."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Event:
    """A canonical event before redaction. `run_id` None: continues an earlier batch's run."""

    run_id: str | None
    seq: int
    role: str
    item_type: str
    is_marker: bool
    is_final: bool
    text: str
    occurred_at: datetime | None
    identity: str = ""


@dataclass
class Parsed:
    events: list[Event] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)

    @property
    def skipped_count(self) -> int:
        return sum(self.skipped.values())


def timestamp(value) -> datetime | None:
    """An ISO-8601 timestamp, or None for anything else (never an error)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return parse_datetime(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def stable_key(*parts) -> str:
    """A short name derived from the item, for runs the source does not name."""
    raw = "\x1f".join(str(part) for part in parts)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def identity_of(value) -> str:
    """A marker's identity: the hash of its raw item, so a resent marker is recognised."""
    raw = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def assemble(pieces: list[Piece]) -> list[Event]:
    """Number pieces within their runs and mark each run's final assistant reply.

    A run's final reply is the assistant message the source calls final, else its last
    assistant message in this batch (so a batch that ends mid-turn marks its latest reply).
    """
    events: list[Event] = []
    run: str | None = None  # until the first prompt: the run an earlier batch began
    seq = -1
    for piece in pieces:
        if piece.opens_run:
            run, seq = piece.run_key, -1
        seq = piece.seq if piece.seq is not None else seq + 1
        events.append(
            Event(
                run_id=run,
                seq=seq,
                role=piece.role,
                item_type=piece.item_type,
                is_marker=piece.is_marker,
                is_final=bool(piece.final) and piece.role == Role.ASSISTANT,
                text="" if piece.is_marker else piece.text,
                occurred_at=piece.occurred_at,
                identity=piece.identity,
            )
        )
    _mark_finals(events, [piece.final for piece in pieces])
    return events


def _mark_finals(events: list[Event], declared: list[bool | None]) -> None:
    by_run: dict[object, list[int]] = {}
    for index, event in enumerate(events):
        by_run.setdefault(event.run_id, []).append(index)
    for indexes in by_run.values():
        if any(declared[i] is not None for i in indexes if events[i].role == Role.ASSISTANT):
            continue  # the source says which reply is final; trust it
        replies = [
            i for i in indexes if events[i].role == Role.ASSISTANT and not events[i].is_marker
        ]
        if replies:
            events[replies[-1]].is_final = True


def parse_items(reader, items: list) -> Parsed:
    """Run an adapter's `read(item, index) -> list[Piece]` over a batch; a broken item is
    skipped with its reason, never an error for the whole batch."""
    parsed = Parsed()
    pieces: list[Piece] = []
    for index, item in enumerate(items):
        try:
            found = reader(item, index)
        except Skip as skip:
            parsed.skipped[skip.reason] += 1
            continue
        except (TypeError, ValueError, KeyError, AttributeError):
            parsed.skipped["invalid"] += 1
            continue
        pieces += found
    parsed.events = assemble(pieces)
    return parsed
