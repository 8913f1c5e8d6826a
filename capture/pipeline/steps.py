"""The capture pipeline's steps, in the order they run: parse → redact → ledger → extract →
propose. Each reads what the steps before it left on the `BatchRun` and adds its own part.

A dry run goes through the same steps; the ledger only looks up which events are new and the
propose step only counts, so a dry run writes nothing but the batch's own counts.
"""

from __future__ import annotations

from collections import Counter

from django.utils import timezone

from capture import adapters, extraction, markers
from capture.pipeline import ledger
from capture.pipeline.base import BatchRun, Step, StopPipeline
from capture.redaction import REDACTION_MASK, redact
from capture.selectors import strip_markers_in_force
from capture.services import proposals as candidate_rules


class Parse(Step):
    """The source's adapter: raw items → canonical events, and the skipped items' reasons.
    Blocks fenced by the owner's strip markers (and the instance's) are dropped here."""

    name = "parse"

    def run(self, run: BatchRun) -> None:
        with markers.stripping(strip_markers_in_force(run.batch.owner_id)):
            parsed = adapters.parse(run.thread.source, run.batch.items or [])
        run.events, run.skipped = parsed.events, parsed.skipped


class Redact(Step):
    """Blank out credentials and personal numbers; an event keeps only its original's hash."""

    name = "redact"

    def run(self, run: BatchRun) -> None:
        for index, event in enumerate(run.events):
            if event.is_marker:
                continue  # markers keep no text; their identity is already a hash
            # The batch's raw items were redacted when it was stored (counted in the batch
            # then): the event counts those masks as its own, plus anything found now.
            masked = Counter(REDACTION_MASK.findall(event.text))
            found = redact(event.text)
            event.text, event.identity = found.text, found.original_sha256
            if found.counts or masked:
                run.event_redactions[index] = dict(masked + Counter(found.counts))
                run.redactions.update(found.counts)


class Ledger(Step):
    """Number and fingerprint the events, store the new ones, move the thread's checkpoint
    and counters. Stops the run when nothing is new: there is nothing to extract from."""

    name = "ledger"

    def run(self, run: BatchRun) -> None:
        run.rows = self._rows(run)
        if run.dry_run:
            stored = ledger.existing_fingerprints(
                run.batch.owner_id, [r.fingerprint for r in run.rows]
            )
            run.new = [row for row in run.rows if row.fingerprint not in stored]
        else:
            run.new = ledger.insert_ignoring_conflicts(run.rows)
            self._advance(run)
        if not run.new:
            raise StopPipeline("nothing new")

    @staticmethod
    def _rows(run: BatchRun) -> list:
        """The events as unsaved rows, duplicates within the batch dropped. Events before the
        batch's first prompt continue the thread's run (or the batch's named run)."""
        batch, thread = run.batch, run.thread
        leading = [event for event in run.events if event.run_id is None]
        if leading:
            run_id = batch.run_id or thread.checkpoint_run
            start = ledger.continuation_start(thread, run_id, leading)
            for event in leading:
                event.run_id, event.seq = run_id, event.seq + start
        rows = {}
        for index, event in enumerate(run.events):
            digest = ledger.fingerprint(
                source=thread.source, thread=thread.external_id, run=event.run_id, seq=event.seq,
                role=event.role, text=event.text,
            )  # fmt: skip
            if digest not in rows:
                rows[digest] = ledger.new_row(
                    owner_id=batch.owner_id, thread_id=thread.pk, batch_id=batch.pk,
                    fingerprint=digest, run_id=event.run_id, seq=event.seq, role=event.role,
                    item_type=event.item_type, is_marker=event.is_marker, is_final=event.is_final,
                    text=event.text, original_sha256=event.identity, occurred_at=event.occurred_at,
                    redactions=run.event_redactions.get(index, {}),
                )  # fmt: skip
                rows[digest].thread = thread  # the row's thread in hand: no query to read it
        return list(rows.values())

    @staticmethod
    def _advance(run: BatchRun) -> None:
        batch, thread = run.batch, run.thread
        if run.new:
            thread.checkpoint_run, thread.checkpoint_seq = run.rows[-1].run_id, run.rows[-1].seq
        thread.item_count += batch.item_count
        thread.event_count += len(run.new)
        thread.duplicate_count += len(run.rows) - len(run.new)
        thread.last_batch_at = thread.updated_at = timezone.now()
        thread.last_error = ""
        thread.agent_name = thread.agent_name or batch.agent_name
        thread.save(update_fields=[
            "checkpoint_run", "checkpoint_seq", "item_count", "event_count", "duplicate_count",
            "last_batch_at", "updated_at", "last_error", "agent_name",
        ])  # fmt: skip


class Extract(Step):
    """The active extractors over exactly the new events (capture.extraction)."""

    name = "extract"

    def able_to_run(self, run: BatchRun) -> bool:
        return bool(run.new)

    def run(self, run: BatchRun) -> None:
        run.proposals = extraction.extract(run.new, project_key=run.thread.project_key or "")


class Propose(Step):
    """Proposals → pending candidates by the inbox's rules; a dry run only counts them."""

    name = "propose"

    def able_to_run(self, run: BatchRun) -> bool:
        return bool(run.proposals)

    def run(self, run: BatchRun) -> None:
        if run.dry_run:
            run.candidates = len(run.proposals)
            return
        run.candidates = candidate_rules.candidates_propose(
            thread=run.thread, proposals=run.proposals, agent_name=run.batch.agent_name
        )


STEPS: tuple[Step, ...] = (Parse(), Redact(), Ledger(), Extract(), Propose())
