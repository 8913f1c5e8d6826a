"""Capture's pipeline: a stored batch of raw items → redacted events in the ledger →
pending candidates, as named steps run in order by one runner (`run_batch`).

    parse → redact → ledger → extract → propose

The caller (`capture.services.ingest.batch_process`) holds the transaction and the locked
batch and thread rows; the steps write only inside it, so a failure anywhere leaves the
batch as it was.
"""

from __future__ import annotations

from capture.models import CaptureBatch, CaptureThread
from capture.pipeline.base import BatchRun, Step, StopPipeline, run_steps
from capture.pipeline.steps import STEPS


def run_batch(batch: CaptureBatch, thread: CaptureThread) -> BatchRun:
    """Run every step over the batch; the run holds the counts and redactions to record."""
    return run_steps(STEPS, BatchRun(batch=batch, thread=thread))


__all__ = ["STEPS", "BatchRun", "Step", "StopPipeline", "run_batch", "run_steps"]
