"""Running one tool call: who is calling, the database work, and the result or error.

Every tool body is a function of the calling `Actor` that returns a JSON object. It runs in
a worker thread (the ORM is synchronous) between two `close_old_connections()` calls, as
Django does around a request, so worker threads never keep stale or leaked connections.
The caller is authenticated again on every call from the token presented with it, so an
expired or revoked token stops working at once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextvars import ContextVar

from asgiref.sync import sync_to_async
from django.db import DatabaseError, close_old_connections
from mcp_types import CallToolResult, TextContent

from continuity.actors import Actor
from continuity.auth import authenticate_agent
from continuity.errors import ErrorCode, ServiceError

logger = logging.getLogger("continuity.mcp")

# The raw token behind the current tool call: the bearer token of the HTTP request, or the
# token the stdio server was started with. Set by the server around each call.
presented_token: ContextVar[str | None] = ContextVar("continuity_mcp_token", default=None)


def error_result(error: ServiceError) -> CallToolResult:
    """A tool error (isError) carrying the envelope: text for the model, structure for code."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{error.code}: {error.message}")],
        structured_content=error.as_envelope(),
        is_error=True,
    )


def ok_result(data: dict) -> CallToolResult:
    text = json.dumps(data, ensure_ascii=False, default=str)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=json.loads(text)
    )


def _run(raw_token: str | None, work: Callable[[Actor], dict]) -> dict:
    close_old_connections()
    try:
        # Authenticates and counts the call against the token's rate limit.
        actor = authenticate_agent(f"Bearer {raw_token}" if raw_token else None)
        return work(actor)
    finally:
        close_old_connections()


async def invoke(work: Callable[[Actor], dict]) -> CallToolResult:
    """Run `work(actor)` for the calling agent; every failure becomes a tool error."""
    try:
        data = await sync_to_async(_run, thread_sensitive=False)(presented_token.get(), work)
    except ServiceError as error:
        return error_result(error)
    except DatabaseError:
        logger.exception("MCP tool call failed in the database")
        return error_result(
            ServiceError(ErrorCode.UNAVAILABLE, "The database is busy or unavailable; try again.")
        )
    except Exception:
        logger.exception("MCP tool call failed")
        return error_result(
            ServiceError(ErrorCode.INTERNAL_ERROR, "Continuity failed to complete this call.")
        )
    return ok_result(data)
