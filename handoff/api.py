"""Agent API routes for handoffs (mounted by `continuity.api`; DESIGN §5 argument names).

    POST /api/v1/handoffs          leave a capsule for a task -> 201 the capsule
    POST /api/v1/handoffs/resume   {task_id} -> 200 {"handoff": the capsule or null}

Both need the token's `handoff` scope. Errors leave in the shared envelope.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.responses import Status as Reply
from pydantic import ConfigDict

from foundation.ninja_door import WRITE_ERRORS
from handoff import contract, services
from handoff.models import TaskStatus
from handoff.shapes import capsule_shape
from memories.api.schemas import Timestamp

router = Router(tags=["handoffs"])

TaskId = Annotated[
    str, Field(min_length=1, max_length=contract.MAX_TASK_ID_CHARS, description="The task's id.")
]


def _items(description: str, max_chars: int = contract.MAX_ITEM_CHARS):
    return Field(
        None,
        max_length=contract.MAX_ITEMS,
        description=contract.items_text(description, max_chars),
    )


class HandoffIn(Schema):
    model_config = ConfigDict(extra="forbid")

    task_id: TaskId
    summary: str = Field(
        ...,
        description="Where the task stands, readable by an agent that saw nothing of it.",
        json_schema_extra={"maxLength": contract.MAX_SUMMARY_CHARS},
    )
    status: TaskStatus | None = Field(None, description=contract.STATUS)
    decisions: list[str] | None = _items("Decisions taken and why.")
    next_steps: list[str] | None = _items("What to do next, in order.")
    artifacts: list[str] | None = _items(
        "Files, branches, commits, URLs the work produced.", contract.MAX_ARTIFACT_CHARS
    )
    blockers: list[str] | None = _items("What stands in the way.")
    expires_at: datetime | None = Field(None, description=contract.EXPIRES_AT)


class ResumeIn(Schema):
    model_config = ConfigDict(extra="forbid")

    task_id: TaskId


class HandoffOut(Schema):
    """A capsule as `handoff.shapes.capsule_shape(capsule, "agent")` shapes it."""

    id: UUID
    task_id: str
    summary: str
    status: TaskStatus
    decisions: list[str]
    next_steps: list[str]
    artifacts: list[str]
    blockers: list[str]
    from_agent: str | None
    created_at: Timestamp
    expires_at: Timestamp
    resumed_at: Timestamp | None
    resumed_by: str | None
    resume_count: int
    state: str


class ResumeOut(Schema):
    handoff: HandoffOut | None = Field(
        ..., description="The newest unexpired capsule of the task, or null when there is none."
    )


@router.post("/handoffs", response={201: HandoffOut, **WRITE_ERRORS}, summary="Hand a task over")
def create(request: HttpRequest, payload: HandoffIn):
    """Leave a capsule for the next agent on this task. Each call adds a capsule; the newest
    unexpired one is what a resume returns."""
    fields = payload.model_dump(exclude_none=True)
    capsule = services.handoff_create(actor=request.actor, **fields)
    return Reply(201, capsule_shape(capsule, "agent"))


@router.post("/handoffs/resume", response={200: ResumeOut, **WRITE_ERRORS}, summary="Resume a task")
def resume(request: HttpRequest, payload: ResumeIn):
    """The newest unexpired capsule of exactly this task (never another task's), marked as
    resumed by the calling agent; `handoff` is null when there is none."""
    capsule = services.handoff_resume(actor=request.actor, task_id=payload.task_id)
    return {"handoff": capsule_shape(capsule, "agent") if capsule else None}
