"""What every step of the capture pipeline shares: the run it reads and fills, the step
protocol, and the one runner that walks the steps in order.

A step says whether it has anything to do (`able_to_run`) and does it (`run`). A step that
finds the rest of the pipeline has nothing left to do raises `StopPipeline`: the runner
records why and skips the remaining steps, which is a clean end, not a failure. Any other
exception is a failure; the caller's transaction rolls everything back.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from capture.adapters.base import Event
from capture.models import CaptureBatch, CaptureThread, ConversationEvent

logger = logging.getLogger("capture.pipeline")


class StopPipeline(Exception):
    """Raised by a step when the steps after it have nothing to do."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class BatchRun:
    """One batch going through the pipeline; each step reads what the earlier ones left."""

    batch: CaptureBatch
    thread: CaptureThread
    events: list[Event] = field(default_factory=list)  # parse: canonical events, in order
    skipped: Counter = field(default_factory=Counter)  # parse: skipped items by reason
    redactions: Counter = field(default_factory=Counter)  # redact: findings by rule
    event_redactions: dict[int, dict] = field(default_factory=dict)  # redact: per event index
    rows: list[ConversationEvent] = field(default_factory=list)  # ledger: fingerprinted, unsaved
    new: list[ConversationEvent] = field(default_factory=list)  # ledger: stored (or would be)
    proposals: list = field(default_factory=list)  # extract: what the new events propose
    candidates: int = 0  # propose: candidates created or merged (a dry run: proposals)
    stopped: str = ""  # "<step>: <reason>" when a step ended the run early

    @property
    def dry_run(self) -> bool:
        return self.batch.dry_run

    def counts(self) -> dict:
        """What the batch records of its run (the batch API's `counts`)."""
        return {
            "items": self.batch.item_count,
            "skipped": sum(self.skipped.values()),
            "skipped_reasons": dict(self.skipped),
            "events": len(self.new),
            "duplicates": len(self.rows) - len(self.new),
            "markers": sum(row.is_marker for row in self.new),
            "candidates": self.candidates,
        }


class Step(ABC):
    """A named step. Subclasses set `name` and implement `run`; `able_to_run` is True unless
    the step says otherwise."""

    name = "step"

    def able_to_run(self, run: BatchRun) -> bool:
        return True

    @abstractmethod
    def run(self, run: BatchRun) -> None:
        """Do this step's part of the run, or raise StopPipeline to end it cleanly."""


def run_steps(steps: Iterable[Step], run: BatchRun) -> BatchRun:
    """Run the steps in order, skipping those not able to run, until one stops the run."""
    for step in steps:
        if not step.able_to_run(run):
            continue
        try:
            step.run(run)
        except StopPipeline as stop:
            run.stopped = f"{step.name}: {stop.reason}"
            logger.debug("batch %s stopped at %s", run.batch.pk, run.stopped)
            break
    return run
