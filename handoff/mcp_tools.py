"""The two handoff tools of the MCP door (DESIGN §5): leave a capsule for the next agent,
and resume one. Each docstring is the description an agent reads.

Like every tool, each is a plain function of the calling agent's `Actor` and its typed
arguments, registered by the MCP server (`continuity.mcp`), which supplies the actor from
the token. The rules (scope, bounds, secrets, which capsule a resume returns) live in
`handoff.services`; bounds and defaults in `handoff.contract`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from foundation.actors import Actor
from handoff import contract, services
from handoff.models import TaskStatus
from handoff.shapes import capsule_shape

TaskStatusName = Literal[tuple(TaskStatus.values)]
TaskId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=contract.MAX_TASK_ID_CHARS,
        description="The task's id, the same string every agent on this task uses "
        "(e.g. an issue key 'github:owner/repo#42' or a ticket id).",
    ),
]


def _items(description: str, max_chars: int = contract.MAX_ITEM_CHARS):
    return Annotated[
        list[Annotated[str, Field(min_length=1, max_length=max_chars)]] | None,
        Field(max_length=contract.MAX_ITEMS, description=description),
    ]


Decisions = _items("Decisions taken so far and why, one per item.")
NextSteps = _items("What the next agent should do, in order, one step per item.")
Artifacts = _items(
    "What the work produced: file paths, branches, commits, URLs.", contract.MAX_ARTIFACT_CHARS
)
Blockers = _items("What stands in the way, if anything.")


def memory_handoff_create(
    actor: Actor,
    task_id: TaskId,
    summary: Annotated[
        str,
        Field(
            min_length=1,
            max_length=contract.MAX_SUMMARY_CHARS,
            description="Where the task stands, written for an agent that saw nothing of "
            "this session: the goal, what is done, what is half done.",
        ),
    ],
    status: Annotated[
        TaskStatusName,
        Field(description="in_progress, blocked, needs_review or done."),
    ] = contract.DEFAULT_STATUS,
    decisions: Decisions = None,
    next_steps: NextSteps = None,
    artifacts: Artifacts = None,
    blockers: Blockers = None,
    expires_at: Annotated[
        datetime | None,
        Field(description=contract.EXPIRES_AT_FOR_AGENTS),
    ] = None,
) -> dict:
    """Hand a task over to another agent (or to your own next session): save a capsule with
    the task's state, decisions, next steps, artifacts and blockers, which
    memory_handoff_resume returns for the same task_id.

    Call it when you stop working on a task that is not finished: before the session ends,
    before the context window is compacted, or when the user asks to continue elsewhere.
    Do NOT call it after every step (one capsule when you stop is enough; a newer capsule
    replaces an older one on resume), and do not use it for durable preferences or facts:
    save those with memory_remember. Never put secrets in it (they are rejected)."""
    capsule = services.handoff_create(
        actor=actor, task_id=task_id, summary=summary, status=status, decisions=decisions,
        next_steps=next_steps, artifacts=artifacts, blockers=blockers, expires_at=expires_at,
    )  # fmt: skip
    return capsule_shape(capsule, "agent")


def memory_handoff_resume(actor: Actor, task_id: TaskId) -> dict:
    """Pick up a task where another agent (or an earlier session) left it: returns the
    newest unexpired handoff capsule of exactly this task_id, and records that you resumed
    it. `handoff` is null when there is none.

    Call it once when you start or continue work on a task that may have been handed over,
    e.g. the user says "continue the task ..." or names a ticket. Do NOT call it to search
    memory (use memory_recall) and do not call it repeatedly in one session: it only ever
    returns this task's capsule, never another task's."""
    capsule = services.handoff_resume(actor=actor, task_id=task_id)
    return {"handoff": capsule_shape(capsule, "agent") if capsule else None}
