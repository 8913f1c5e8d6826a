"""The agent API at `/api/v1/` (django-ninja): assembly, and the capabilities route.

Every route authenticates with the bearer token (`AgentTokenAuth` sets `request.actor` and
counts the request against the token's rate limit) and fails in the one envelope of
`foundation.ninja_door`. An app's routes join with one `api.add_router` line below.
OpenAPI at /api/v1/openapi.json, interactive docs at /api/v1/docs.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja import NinjaAPI, Schema

from accounts.auth import AgentTokenAuth
from accounts.refusals import note_refusal
from continuity.capabilities import capabilities as capabilities_for
from foundation.ninja_door import READ_ERRORS, install_error_handlers, refuse_unknown_parameters
from memories.api import router as memories_router
from memories.api.schemas import Timestamp

api = NinjaAPI(
    title="Continuity agent API",
    version=settings.VERSION,
    description=(
        "Agents read and write their owner's long-term memory. Authenticate every call with "
        "`Authorization: Bearer cont_pat_...`. Every error has one shape: "
        '`{"error": {"code", "message", "details"}}`.'
    ),
    urls_namespace="api-v1",
    auth=AgentTokenAuth(),
)


def _note_refusal(request: HttpRequest, error) -> None:
    actor = getattr(request, "actor", None)
    if actor is not None and actor.token is not None:
        note_refusal(actor.token, error, f"{request.method} {request.path}")


install_error_handlers(api, on_refusal=_note_refusal)

api.add_router("/", memories_router)
api.add_router("/", "handoff.api.router")
api.add_router("/", "injection.api.router")
api.add_router("/", "capture.api.router")


class TokenBudgetLimits(Schema):
    min: int
    max: int
    context_default: int
    bootstrap_default: int


class LimitsOut(Schema):
    max_content_chars: int
    recall_max_limit: int
    recall_default_limit: int
    history_max_limit: int
    token_budget: TokenBudgetLimits
    context_max_memories: int
    checkpoint_max_memories: int
    max_tags: int
    max_retrieval_hints: int
    rate_limit_per_minute: int


class CapabilitiesOut(Schema):
    """`continuity.capabilities.capabilities()`, which memory_capabilities returns too."""

    profile: str
    version: str
    agent_name: str
    scopes: list[str]
    allowed_projects: list[str]
    expires_at: Timestamp
    channels: list[str]
    limits: LimitsOut


@api.get(
    "/capabilities",
    response={200: CapabilitiesOut, **READ_ERRORS},
    tags=["meta"],
    summary="What this server offers the calling token",
)
def capabilities(request: HttpRequest):
    """The profile, version and retrieval channels of this server, the limits every call is
    held to, and what the calling token may do and until when. Needs no scope; call it once
    per session. The memory_capabilities tool answers the same."""
    refuse_unknown_parameters(request, ())
    return capabilities_for(request.actor)
