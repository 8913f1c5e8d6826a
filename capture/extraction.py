"""Extraction: signals in captured conversation → pending candidate memories.

The capture pipeline's extract step calls `extract` inside the transaction that stores a
batch's events, so a retried batch never proposes twice. `propose_candidates` (extract, then
store) and `find_proposals` (pure; reads nothing from and writes nothing to the database) do
the same for callers outside the pipeline.

Only user messages and final assistant replies feed extraction (tool items, reasoning and
compaction summaries never do). Extractors are pluggable: `CONTINUITY_EXTRACTOR` names the
registered extractors to run, comma-separated; the default is the rule extractor alone
(`capture.signals`). A model-based extractor registers itself with `register_extractor`
and is switched on in settings; whatever it proposes passes the same checks and merge
rules as the rules' proposals (rejections, never-remember patterns, known memories).

Scope: a statement becomes project-scoped when its thread has a project key and the
statement is about the project (it names "this repo", 这个项目, a file path ...) or is a
decision (decisions are made in and for a project); everything else is global.
Confidence: the cue's base confidence; an assistant's restatement at most 0.6; minus 0.15
for an incomplete turn (a user message the batch has no final reply to) and for text that
looks cut off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from capture import signals
from memories import text
from memories.models import Kind, ScopeType

ASSISTANT_CONFIDENCE_CAP = 0.6
INCOMPLETE_PENALTY = 0.15
TRUNCATED_PENALTY = 0.15
MIN_CONFIDENCE = 0.05
MAX_CONTENT_CHARS = 400


@dataclass(frozen=True)
class Turn:
    """One event that may feed extraction, as an extractor sees it."""

    event: object  # the ConversationEvent
    role: str
    text: str
    complete: bool  # user input with a final reply in the same batch, or the reply itself


@dataclass(frozen=True)
class Proposal:
    content: str
    kind: str
    scope_type: str
    scope_key: str
    rule: str
    confidence: float
    sentence: str
    event: object

    @property
    def fingerprint(self) -> str:
        return text.fingerprint(self.content, self.scope_type, self.scope_key)


Extractor = Callable[[list[Turn], str], list[Proposal]]
_EXTRACTORS: dict[str, Extractor] = {}


def register_extractor(name: str, extractor: Extractor) -> None:
    """Make an extractor selectable by name in CONTINUITY_EXTRACTOR."""
    _EXTRACTORS[name] = extractor


def unregister_extractor(name: str) -> None:
    if name != "rules":
        _EXTRACTORS.pop(name, None)


def active_extractors() -> list[Extractor]:
    names = [name.strip() for name in getattr(settings, "CONTINUITY_EXTRACTOR", "rules").split(",")]
    unknown = [name for name in names if name and name not in _EXTRACTORS]
    if unknown:
        raise ImproperlyConfigured(
            f"CONTINUITY_EXTRACTOR names unknown extractors: {', '.join(unknown)} "
            f"(registered: {', '.join(sorted(_EXTRACTORS))})."
        )
    return [_EXTRACTORS[name] for name in names if name]


def scope_for(*, projectish: bool, kind: str, project_key: str) -> tuple[str, str]:
    if project_key and (projectish or kind == Kind.DECISION):
        return ScopeType.PROJECT, project_key
    return ScopeType.GLOBAL, ""


def rule_extractor(turns: list[Turn], project_key: str) -> list[Proposal]:
    """The default: explicit English and Chinese cues (see capture.signals)."""
    proposals = []
    for turn in turns:
        from_assistant = turn.role == "assistant"
        for found in signals.signals_in(turn.text, from_assistant=from_assistant):
            confidence = found.confidence
            if from_assistant:
                confidence = min(confidence, ASSISTANT_CONFIDENCE_CAP)
            if not turn.complete:
                confidence -= INCOMPLETE_PENALTY
            if found.truncated:
                confidence -= TRUNCATED_PENALTY
            scope_type, scope_key = scope_for(
                projectish=found.projectish, kind=found.kind, project_key=project_key
            )
            proposals.append(
                Proposal(
                    content=found.content,
                    kind=found.kind,
                    scope_type=scope_type,
                    scope_key=scope_key,
                    rule=found.rule,
                    confidence=round(max(confidence, MIN_CONFIDENCE), 2),
                    sentence=found.sentence,
                    event=turn.event,
                )  # fmt: skip
            )
    return proposals


register_extractor("rules", rule_extractor)


def feeds_extraction(event) -> bool:
    if event.is_marker or not (event.text or "").strip():
        return False
    return event.role == "user" or (event.role == "assistant" and event.is_final)


def turns_of(events: Iterable) -> list[Turn]:
    """Eligible events in conversation order, each marked complete or not."""
    ordered = sorted(events, key=lambda event: (event.run_id or "", event.seq))
    turns = []
    for index, event in enumerate(ordered):
        if not feeds_extraction(event):
            continue
        complete = event.role == "assistant" or any(
            later.role == "assistant" and later.is_final and not later.is_marker
            for later in ordered[index + 1 :]
        )
        turns.append(Turn(event=event, role=event.role, text=event.text, complete=complete))
    return turns


def _project_key_of(events: list) -> str:
    """The thread's project key if the thread row is already in hand (no query)."""
    from capture.models import ConversationEvent

    for event in events:
        if ConversationEvent.thread.is_cached(event):
            return event.thread.project_key or ""
    return ""


def _acceptable(proposal: Proposal) -> bool:
    """What every extractor's proposal must satisfy, whoever made it."""
    content = (proposal.content or "").strip()
    return (
        bool(content)
        and len(content) <= MAX_CONTENT_CHARS
        and not signals.REDACTED.search(content)
        and proposal.kind in Kind.values
        and proposal.scope_type in (ScopeType.GLOBAL, ScopeType.PROJECT)
        and 0 <= proposal.confidence <= 1
    )


def extract(events: Iterable, *, project_key: str) -> list[Proposal]:
    turns = turns_of(events)
    if not turns:
        return []
    proposals = []
    for extractor in active_extractors():
        proposals += [
            proposal for proposal in extractor(turns, project_key) if _acceptable(proposal)
        ]
    return proposals


def find_proposals(events) -> list:
    """The candidates these events would yield (pure; no database)."""
    events = list(events)
    return extract(events, project_key=_project_key_of(events))


def propose_candidates(thread, events, *, agent_name: str) -> int:
    """Store pending candidates for these freshly stored events; the number created or merged."""
    from capture.services.proposals import candidates_propose

    proposals = extract(list(events), project_key=thread.project_key or "")
    return candidates_propose(thread=thread, proposals=proposals, agent_name=agent_name)
