"""The MCP server: tool registration (the tools are the apps': continuity/mcp/tools.py lists
them), bearer-token auth, errors in the envelope, transports.

Two doors share one server definition: Streamable HTTP at /mcp (stateless, JSON responses,
mounted beside Django by continuity/asgi.py) and stdio (`manage.py mcp_stdio`, with the
token from the environment).
"""

from __future__ import annotations

import hmac
import inspect
from contextvars import ContextVar
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult
from pydantic import ValidationError
from starlette.responses import JSONResponse

from accounts.auth import actor_from_authorization
from accounts.models import PersonalAccessToken
from accounts.tokens import hash_token
from continuity.mcp.calls import Caller, as_tool, current_caller, error_result
from continuity.mcp.guard import HostOriginGuard
from continuity.mcp.tools import TOOLS
from foundation.errors import ErrorCode, ServiceError, shown_name, unavailable_error
from foundation.input_guard import check_json

MCP_PATH = "/mcp"
MAX_REQUEST_BYTES = 1024 * 1024

INSTRUCTIONS = """\
Continuity is the user's long-term memory, shared by all their agents. Call memory_bootstrap \
once when a session starts. Before answering anything that depends on the user's preferences, \
their project's conventions or earlier decisions, call memory_recall. Save durable \
preferences, decisions and lessons with memory_remember (never secrets or chatter), and \
checkpoint at milestones. The user reviews everything agents write."""


def _validation_failure(error: ValidationError) -> ServiceError:
    details, parts = [], []
    for item in error.errors():
        field = shown_name(".".join(str(part) for part in item["loc"])) or None
        details.append({"field": field, "message": item["msg"]})
        parts.append(f"{field}: {item['msg']}" if field else item["msg"])
    return ServiceError(
        ErrorCode.VALIDATION_ERROR, "Invalid arguments: " + "; ".join(parts), details
    )


class ContinuityMCP(MCPServer):
    """MCPServer that knows who is calling and renders every failure in the envelope.

    With `token` (stdio) every call acts with that token; without it (HTTP) with the bearer
    token the SDK verified for this request. Argument errors — unknown names, wrong types,
    values out of bounds — become VALIDATION_ERROR tool errors like any service error.
    """

    def __init__(self, *, token: str | None = None, **kwargs: Any):
        registered = []
        for body, (title, hints) in TOOLS.items():
            tool = Tool.from_function(
                as_tool(body),
                title=title,
                description=inspect.cleandoc(body.__doc__),
                annotations=hints,
            )
            # Unknown arguments are refused (below), and the schema says so.
            tool.parameters["additionalProperties"] = False
            registered.append(tool)
        super().__init__(
            name="continuity",
            title="Continuity memory",
            version=settings.VERSION,
            instructions=INSTRUCTIONS,
            tools=registered,
            **kwargs,
        )
        self._parameters = {
            tool.name: set(tool.parameters.get("properties", {})) for tool in registered
        }
        self._token = token

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None) -> CallToolResult:
        reset = current_caller.set(self._caller())
        try:
            unknown = sorted(
                {
                    shown_name(arg)
                    for arg in set(arguments) - self._parameters.get(name, set(arguments))
                }
            )
            if unknown:
                return error_result(
                    ServiceError(
                        ErrorCode.VALIDATION_ERROR,
                        f"Unknown argument(s) for {name}: {', '.join(unknown)}.",
                        [{"field": field, "message": "unknown argument"} for field in unknown],
                    )
                )
            try:
                # What the HTTP doors refuse too (foundation/input_guard.py): NUL, unpaired
                # surrogates, nesting past the bound, integers past 2^53.
                check_json(arguments)
            except ServiceError as refused:
                return error_result(refused)
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ValidationError) and not isinstance(error, UnexpectedToolError):
                return error_result(_validation_failure(cause))
            raise
        finally:
            current_caller.reset(reset)

    def _caller(self) -> Caller:
        if self._token is not None:
            return Caller(self._token)  # stdio: looked up again on every call
        access = get_access_token()
        if access is None:
            return Caller(None)
        verified = _verified_in_this_request.get()
        if verified is not None and hmac.compare_digest(
            verified.secret_hash, hash_token(access.token)
        ):
            return Caller(access.token, verified)
        return Caller(access.token)


# The token row the verifier found for the current HTTP request. A context variable lives
# as long as the request's own context, so nothing outlives the request.
_verified_in_this_request: ContextVar[PersonalAccessToken | None] = ContextVar(
    "continuity_mcp_verified_token", default=None
)


class PersonalAccessTokenVerifier:
    """The SDK's TokenVerifier for `cont_pat_` tokens: looked up on every request, never
    cached, so expiry and revocation apply at once."""

    async def verify_token(self, token: str) -> AccessToken | None:
        pat = await sync_to_async(_verify, thread_sensitive=False)(token)
        _verified_in_this_request.set(pat)
        return _access_token(token, pat) if pat is not None else None


def _verify(raw: str) -> PersonalAccessToken | None:
    close_old_connections()
    try:
        return actor_from_authorization(f"Bearer {raw}").token
    except ServiceError:
        return None
    finally:
        close_old_connections()


def _access_token(raw: str, pat: PersonalAccessToken) -> AccessToken:
    return AccessToken(
        token=raw,
        client_id=pat.agent_name,
        scopes=list(pat.scopes),
        expires_at=int(pat.expires_at.timestamp()),
        subject=str(pat.owner_id),
    )


def build_server(*, token: str | None = None) -> ContinuityMCP:
    """The stdio server acting with `token`, or (no token) the HTTP server, which
    authenticates each request's bearer token."""
    if token is not None:
        return ContinuityMCP(token=token)
    return ContinuityMCP(
        token_verifier=PersonalAccessTokenVerifier(),
        # Resource-server mode without OAuth: no metadata routes are published (there is no
        # authorization server; tokens are issued in the dashboard), so the issuer URL is
        # never shown. The SDK still requires one.
        auth=AuthSettings(issuer_url="http://localhost", resource_server_url=None),
    )


def transport_security() -> TransportSecuritySettings:
    """The SDK's own Host/Origin check is off: HostOriginGuard (guard.py) makes the one
    check, exactly, before the SDK sees a request (the SDK matches `name:*` by prefix)."""
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def http_app() -> HostOriginGuard:
    """The Starlette app serving /mcp. Its lifespan runs the SDK's session manager, which
    even stateless requests need: the ASGI dispatcher must forward lifespan to it."""
    app = build_server().streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
        max_request_body_size=MAX_REQUEST_BYTES,
    )
    # Starlette hands an `Exception` handler to its outermost error middleware, which also
    # sees failures of the SDK's authentication middleware (the token lookup).
    app.add_exception_handler(Exception, _server_error)
    return HostOriginGuard(
        app,
        hosts=list(settings.CONTINUITY_MCP_ALLOWED_HOSTS),
        origins=list(settings.CONTINUITY_MCP_ALLOWED_ORIGINS),
        path=MCP_PATH,
    )


async def _server_error(request, exc: Exception) -> JSONResponse:
    if unavailable := unavailable_error(exc):
        return JSONResponse(unavailable.as_envelope(), status_code=503, headers=unavailable.headers)
    return JSONResponse(
        ServiceError(
            ErrorCode.INTERNAL_ERROR, "Continuity failed to complete this request."
        ).as_envelope(),
        status_code=500,
    )
