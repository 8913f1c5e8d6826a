"""The agent API at `/api/v1/` (django-ninja): assembly, and the capabilities route.

Every route authenticates with the bearer token (`AgentTokenAuth` sets `request.actor` and
counts the request against the token's rate limit) and fails in the one envelope of
`foundation.ninja_door`. An app's routes join with one `api.add_router` line below.
OpenAPI at /api/v1/openapi.json, interactive docs at /api/v1/docs.
"""

from __future__ import annotations

import inspect

from django.conf import settings
from django.http import HttpRequest
from ninja import NinjaAPI, Schema

from accounts.auth import AgentTokenAuth
from accounts.ratelimit import rate_limit_per_minute
from foundation.ninja_door import READ_ERRORS, install_error_handlers, refuse_unknown_parameters
from memories import retrieval
from memories.api import router as memories_router
from memories.gates import MAX_CONTENT_CHARS
from memories.selectors import HISTORY_MAX_LIMIT

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
install_error_handlers(api)

api.add_router("/", memories_router)
api.add_router("/", "handoff.api.router")
api.add_router("/", "injection.api.router")
api.add_router("/", "capture.api.router")


def _default(function, argument: str):
    return inspect.signature(function).parameters[argument].default


# The defaults live in the retrieval functions' signatures; read them there.
CONTEXT_DEFAULT_BUDGET = _default(retrieval.context_pack, "token_budget")
BOOTSTRAP_DEFAULT_BUDGET = _default(retrieval.bootstrap, "token_budget")


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
    rate_limit_per_minute: int


class CapabilitiesOut(Schema):
    profile: str
    version: str
    agent_name: str
    scopes: list[str]
    allowed_projects: list[str]
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
    held to, and what the calling token may do. Needs no scope; call it once per session."""
    refuse_unknown_parameters(request, ())
    token = request.actor.token
    return {
        "profile": settings.CONTINUITY_PROFILE,
        "version": settings.VERSION,
        "agent_name": token.agent_name,
        "scopes": sorted(token.scopes),
        "allowed_projects": list(token.allowed_projects),
        "channels": retrieval.available_channels(),
        "limits": {
            "max_content_chars": MAX_CONTENT_CHARS,
            "recall_max_limit": retrieval.MAX_LIMIT,
            "recall_default_limit": retrieval.DEFAULT_LIMIT,
            "history_max_limit": HISTORY_MAX_LIMIT,
            "token_budget": {
                "min": retrieval.MIN_TOKEN_BUDGET,
                "max": retrieval.MAX_TOKEN_BUDGET,
                "context_default": CONTEXT_DEFAULT_BUDGET,
                "bootstrap_default": BOOTSTRAP_DEFAULT_BUDGET,
            },
            "rate_limit_per_minute": rate_limit_per_minute(),
        },
    }
