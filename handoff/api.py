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
from handoff import services
from handoff.models import MAX_SUMMARY_CHARS, TaskStatus
from handoff.selectors import capsule_data

router = Router(tags=["handoffs"])

TaskId = Annotated[
    str, Field(min_length=1, max_length=services.MAX_TASK_ID_CHARS, description="The task's id.")
]


def _items(description: str, max_chars: int = services.MAX_ITEM_CHARS):
    return Field(
        None,
        max_length=services.MAX_ITEMS,
        description=f"{description} At most {services.MAX_ITEMS} items of {max_chars:,} characters.",
    )


class HandoffIn(Schema):
    model_config = ConfigDict(extra="forbid")

    task_id: TaskId
    summary: str = Field(
        ...,
        description="Where the task stands, readable by an agent that saw nothing of it.",
        json_schema_extra={"maxLength": MAX_SUMMARY_CHARS},
    )
    status: TaskStatus | None = Field(None, description="Default in_progress.")
    decisions: list[str] | None = _items("Decisions taken and why.")
    next_steps: list[str] | None = _items("What to do next, in order.")
    artifacts: list[str] | None = _items(
        "Files, branches, commits, URLs the work produced.", services.MAX_ARTIFACT_CHARS
    )
    blockers: list[str] | None = _items("What stands in the way.")
    expires_at: datetime | None = Field(
        None,
        description="When the capsule stops being resumable; default "
        f"CONTINUITY_HANDOFF_DEFAULT_DAYS (14) days, at most {services.MAX_EXPIRY_DAYS}.",
    )


class ResumeIn(Schema):
    model_config = ConfigDict(extra="forbid")

    task_id: TaskId


class HandoffOut(Schema):
    id: UUID
    task_id: str
    summary: str
    status: TaskStatus
    decisions: list[str]
    next_steps: list[str]
    artifacts: list[str]
    blockers: list[str]
    from_agent: str | None
    created_at: datetime
    expires_at: datetime
    resumed_at: datetime | None
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
    return Reply(201, capsule_data(services.handoff_create(actor=request.actor, **fields)))


@router.post("/handoffs/resume", response={200: ResumeOut, **WRITE_ERRORS}, summary="Resume a task")
def resume(request: HttpRequest, payload: ResumeIn):
    """The newest unexpired capsule of exactly this task (never another task's), marked as
    resumed by the calling agent; `handoff` is null when there is none."""
    capsule = services.handoff_resume(actor=request.actor, task_id=payload.task_id)
    return {"handoff": capsule_data(capsule) if capsule else None}
