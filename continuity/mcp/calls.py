"""Running one tool call: who is calling, the database work, and the result or error.

Every tool body is a function of the calling `Actor` and its arguments that returns a JSON
object (the apps' `mcp_tools`); `as_tool` makes the SDK tool of it. It runs in
a worker thread (the ORM is synchronous) between two `close_old_connections()` calls, as
Django does around a request, so worker threads never keep stale or leaked connections.
The caller is authenticated again on every call from the token presented with it, so an
expired or revoked token stops working at once.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp_types import CallToolResult, TextContent

from accounts.auth import authenticate_agent
from accounts.models import PersonalAccessToken
from accounts.ratelimit import rate_limit_hit
from accounts.refusals import note_refusal
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, unavailable_error

logger = logging.getLogger("continuity.mcp")


@dataclass(frozen=True)
class Caller:
    """Who presented what for the current tool call: the bearer token of the HTTP request or
    the token the stdio server runs with, and the token row when this same HTTP request has
    already verified it (it is then not looked up twice)."""

    raw: str | None
    verified: PersonalAccessToken | None = None


current_caller: ContextVar[Caller] = ContextVar(
    "continuity_mcp_caller",
    default=Caller(None),  # noqa: B039 - a frozen dataclass
)


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


def _actor(caller: Caller) -> Actor:
    """The calling agent, counted against its token's rate limit."""
    if caller.verified is not None:
        try:
            rate_limit_hit(caller.verified.pk)
        except ServiceError as refused:
            note_refusal(caller.verified, refused, "MCP")
            raise
        return Actor.agent(caller.verified)
    return authenticate_agent(f"Bearer {caller.raw}" if caller.raw else None)


def _run(caller: Caller, work: Callable[[Actor], dict], where: str) -> dict:
    close_old_connections()
    try:
        actor = _actor(caller)
        try:
            return work(actor)
        except ServiceError as refused:
            note_refusal(actor.token, refused, where)
            raise
    finally:
        close_old_connections()


async def invoke(work: Callable[[Actor], dict], where: str = "MCP") -> CallToolResult:
    """Run `work(actor)` for the calling agent; every failure becomes a tool error."""
    try:
        data = await sync_to_async(_run, thread_sensitive=False)(current_caller.get(), work, where)
    except ServiceError as error:
        return error_result(error)
    except Exception as error:
        if unavailable := unavailable_error(error):
            logger.warning("database unavailable in an MCP tool call: %s", error)
            return error_result(unavailable)
        logger.exception("MCP tool call failed")
        return error_result(
            ServiceError(ErrorCode.INTERNAL_ERROR, "Continuity failed to complete this call.")
        )
    return ok_result(data)


def as_tool(body: Callable[..., dict]) -> Callable[..., Awaitable[CallToolResult]]:
    """The SDK tool for `body(actor, **arguments) -> dict`: the same name, docstring and
    typed arguments, without `actor`, which comes from the calling token. The SDK builds the
    tool's input schema from this signature, so it is the body's own, less the actor."""
    signature = inspect.signature(body, eval_str=True)
    actor, *arguments = signature.parameters.values()
    if actor.name != "actor":
        raise TypeError(f"{body.__qualname__} must take the calling actor first")

    @functools.wraps(body)
    async def tool(**given):
        return await invoke(lambda caller: body(caller, **given), f"MCP {body.__name__}")

    tool.__signature__ = signature.replace(parameters=arguments, return_annotation=CallToolResult)
    tool.__annotations__ = {
        **{argument.name: argument.annotation for argument in arguments},
        "return": CallToolResult,
    }
    return tool
