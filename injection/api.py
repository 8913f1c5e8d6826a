"""Agent API route for injection (mounted by `continuity.api`):

    POST /api/v1/inject  {prompt, project_key? | workspace?, agent?} -> 200 the memory block

Needs the token's `memories:read` scope. Time never makes it fail: over the server's budget
the answer is empty with reason `time_budget`. Errors leave in the shared envelope.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Field, Router, Schema
from pydantic import ConfigDict

from foundation.ninja_door import WRITE_ERRORS
from injection import services as injection

router = Router(tags=["injection"])


class InjectIn(Schema):
    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(
        ...,
        description="The prompt about to be sent; only a 12-hex sha256 prefix of it is kept.",
        json_schema_extra={"maxLength": injection.MAX_PROMPT_CHARS},
    )
    project_key: str | None = Field(
        None, description="e.g. github:owner/repo; wins over workspace."
    )
    workspace: str | None = Field(
        None, description="A git remote URL (normalised to host:owner/repo) or a directory path."
    )
    agent: str | None = Field(
        None, description="The calling program (claude-code, codex); default the token's agent."
    )


class InjectedItemOut(Schema):
    id: str
    kind: str
    trust: str
    scope_type: str
    scope_key: str
    tokens: int


class InjectOut(Schema):
    context: str
    items: list[InjectedItemOut]
    token_estimate: int
    reason: str
    project_key: str | None
    receipt_id: int
    latency_ms: float
    budget: dict


@router.post(
    "/inject",
    response={200: InjectOut, **WRITE_ERRORS},
    summary="The approved shared memories to put before a prompt",
)
def inject(request: HttpRequest, payload: InjectIn):
    """At most 8 owner-approved (confirmed or locked), shared, active memories of the global
    scope and this project, relevant to the prompt (or the owner's core when nothing is),
    within 800 estimated tokens, fenced as reference data. `reason` says why it is empty:
    `no_match` or `time_budget`."""
    given = payload.model_dump(exclude_none=True)
    return injection.inject(actor=request.actor, **given).as_dict()
