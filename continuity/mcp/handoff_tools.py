"""The two handoff tools (DESIGN §5): leave a capsule for the next agent, and resume one.

Like every tool, they translate arguments and call one service with the calling agent's
`Actor`; the rules (scope, bounds, secrets, which capsule a resume returns) live in
`handoff.services`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp_types import CallToolResult
from pydantic import Field

from continuity.mcp.calls import invoke
from handoff import services
from handoff.models import MAX_SUMMARY_CHARS, TaskStatus
from handoff.selectors import capsule_data

TaskStatusName = Literal[tuple(TaskStatus.values)]
TaskId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=services.MAX_TASK_ID_CHARS,
        description="The task's id, the same string every agent on this task uses "
        "(e.g. an issue key 'github:owner/repo#42' or a ticket id).",
    ),
]


def _items(description: str, max_chars: int = services.MAX_ITEM_CHARS):
    return Annotated[
        list[Annotated[str, Field(min_length=1, max_length=max_chars)]] | None,
        Field(max_length=services.MAX_ITEMS, description=description),
    ]


Decisions = _items("Decisions taken so far and why, one per item.")
NextSteps = _items("What the next agent should do, in order, one step per item.")
Artifacts = _items(
    "What the work produced: file paths, branches, commits, URLs.", services.MAX_ARTIFACT_CHARS
)
Blockers = _items("What stands in the way, if anything.")


async def memory_handoff_create(
    task_id: TaskId,
    summary: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_SUMMARY_CHARS,
            description="Where the task stands, written for an agent that saw nothing of "
            "this session: the goal, what is done, what is half done.",
        ),
    ],
    status: Annotated[
        TaskStatusName,
        Field(description="in_progress, blocked, needs_review or done."),
    ] = "in_progress",
    decisions: Decisions = None,
    next_steps: NextSteps = None,
    artifacts: Artifacts = None,
    blockers: Blockers = None,
    expires_at: Annotated[
        datetime | None,
        Field(
            description="When the capsule stops being resumable, with a time zone "
            "(by default the server's handoff lifetime, 14 days unless configured; at most "
            f"{services.MAX_EXPIRY_DAYS})."
        ),
    ] = None,
) -> CallToolResult:
    """Hand a task over to another agent (or to your own next session): save a capsule with
    the task's state, decisions, next steps, artifacts and blockers, which
    memory_handoff_resume returns for the same task_id.

    Call it when you stop working on a task that is not finished: before the session ends,
    before the context window is compacted, or when the user asks to continue elsewhere.
    Do NOT call it after every step (one capsule when you stop is enough; a newer capsule
    replaces an older one on resume), and do not use it for durable preferences or facts:
    save those with memory_remember. Never put secrets in it (they are rejected)."""
    return await invoke(
        lambda actor: capsule_data(
            services.handoff_create(
                actor=actor, task_id=task_id, summary=summary, status=status,
                decisions=decisions, next_steps=next_steps, artifacts=artifacts,
                blockers=blockers, expires_at=expires_at,
            )
        )
    )  # fmt: skip


async def memory_handoff_resume(task_id: TaskId) -> CallToolResult:
    """Pick up a task where another agent (or an earlier session) left it: returns the
    newest unexpired handoff capsule of exactly this task_id, and records that you resumed
    it. `handoff` is null when there is none.

    Call it once when you start or continue work on a task that may have been handed over,
    e.g. the user says "continue the task ..." or names a ticket. Do NOT call it to search
    memory (use memory_recall) and do not call it repeatedly in one session: it only ever
    returns this task's capsule, never another task's."""
    return await invoke(
        lambda actor: {
            "handoff": capsule_data(capsule)
            if (capsule := services.handoff_resume(actor=actor, task_id=task_id))
            else None
        }
    )
