"""The memory tools that read: bootstrap, recall, context and history."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from foundation.actors import Actor
from memories import contract, retrieval
from memories.contract import (
    BOOTSTRAP_DEFAULT_BUDGET,
    CONTEXT_DEFAULT_BUDGET,
    CONTEXT_DEFAULT_MAX_MEMORIES,
    CONTEXT_MAX_MEMORIES,
    HISTORY_DEFAULT_LIMIT,
    HISTORY_MAX_LIMIT,
    MAX_CURSOR_CHARS,
    MAX_TOKEN_BUDGET,
    MIN_TOKEN_BUDGET,
    RECALL_DEFAULT_LIMIT,
    RECALL_MAX_LIMIT,
)
from memories.mcp_tools.arguments import (
    MAX_KINDS,
    AltQueries,
    Cursor,
    KindName,
    MemoryId,
    ProjectKey,
    Purpose,
    Query,
    TaskId,
)
from memories.selectors import memory_history as history_page
from memories.shapes import event_shape


def memory_bootstrap(
    actor: Actor,
    project_key: ProjectKey = None,
    token_budget: Annotated[
        int,
        Field(
            ge=MIN_TOKEN_BUDGET,
            le=MAX_TOKEN_BUDGET,
            description="Most tokens the context may use (estimated as UTF-8 bytes / 4).",
        ),
    ] = BOOTSTRAP_DEFAULT_BUDGET,
) -> dict:
    """Load what the user has asked agents to keep in mind: their standing preferences,
    constraints and decisions (global, plus the current project's), as one token-budgeted
    context block to read before working.

    Call it ONCE at the start of a session, and again only if you switch to another
    project. Do not call it every turn, and do not use it to look something up: use
    memory_recall for a specific question. The block is ordered deterministically;
    `dropped_ids` lists memories that did not fit the budget (recall them if needed)."""
    return retrieval.bootstrap(
        actor=actor, project_key=project_key, token_budget=token_budget
    ).as_dict()


def memory_recall(
    actor: Actor,
    query: Query,
    alt_queries: AltQueries = None,
    project_key: ProjectKey = None,
    task_id: TaskId = None,
    kinds: Annotated[
        list[KindName] | None,
        Field(max_length=MAX_KINDS, description="Only memories of these kinds. Optional."),
    ] = None,
    limit: Annotated[
        int, Field(ge=1, le=RECALL_MAX_LIMIT, description="Most memories to return.")
    ] = RECALL_DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> dict:
    """Search the user's memory for specific statements: their preferences, project
    conventions, earlier decisions, constraints and lessons learned.

    Call it before answering or acting where the user's own preferences, their project's
    conventions or a past decision could matter ("which test runner do we use?", "how does
    the user like commit messages?"), and when the user refers to an earlier session. Do
    NOT call it for general knowledge, documentation or facts about the world: the memory
    only holds what this user and their agents chose to keep. When `no_confident_match` is
    true, say you don't know rather than relying on the weak results. A result with
    `conflicts_with` contradicts another memory: do not follow either silently, ask the
    user. Results are paged: pass `next_cursor` back as `cursor` for more."""
    return retrieval.recall(
        actor=actor, query=query, alt_queries=alt_queries, project_key=project_key,
        task_id=task_id, kinds=kinds, limit=limit, cursor=cursor,
    ).as_dict()  # fmt: skip


def memory_context(
    actor: Actor,
    query: Query,
    alt_queries: AltQueries = None,
    project_key: ProjectKey = None,
    task_id: TaskId = None,
    purpose: Annotated[
        Purpose,
        Field(description="What the context is for; it shifts which kinds of memory come first."),
    ] = contract.DEFAULT_PURPOSE,
    token_budget: Annotated[
        int,
        Field(
            ge=MIN_TOKEN_BUDGET,
            le=MAX_TOKEN_BUDGET,
            description="Most tokens the context may use (estimated as UTF-8 bytes / 4).",
        ),
    ] = CONTEXT_DEFAULT_BUDGET,
    max_memories: Annotated[
        int, Field(ge=1, le=CONTEXT_MAX_MEMORIES, description="Most memories to include.")
    ] = CONTEXT_DEFAULT_MAX_MEMORIES,
) -> dict:
    """Build a ready-to-read context block for one piece of work: the memories relevant to
    `query`, selected whole (never cut mid-statement) into `token_budget`, plus what was
    left out and why.

    Call it when you start a substantial task (planning a change, writing code in a
    project, reviewing) and want the relevant preferences, conventions and decisions in
    one block. For one quick question use memory_recall; at the start of a session use
    memory_bootstrap. Do not call it every turn."""
    return retrieval.context_pack(
        actor=actor, query=query, alt_queries=alt_queries, project_key=project_key,
        task_id=task_id, purpose=purpose, token_budget=token_budget,
        max_memories=max_memories,
    ).as_dict()  # fmt: skip


def memory_history(
    actor: Actor,
    id: MemoryId,
    limit: Annotated[
        int, Field(ge=1, le=HISTORY_MAX_LIMIT, description="Most events to return.")
    ] = HISTORY_DEFAULT_LIMIT,
    cursor: Annotated[
        str | None,
        Field(
            max_length=MAX_CURSOR_CHARS,
            description="The next_cursor of the previous page of this memory's history.",
        ),
    ] = None,
) -> dict:
    """Show how one memory changed over time: the events of it and of its earlier versions
    (created, replaced, merged, linked, archived, superseded...), newest first, with who
    made each change and why.

    Call it when you need to know where a memory came from or why it changed, e.g. before
    disputing or replacing it. Not needed for ordinary recall."""
    page = history_page(actor=actor, memory_id=id, limit=limit, cursor=cursor)
    events = [event_shape(event, "agent") for event in page.events]
    return {"events": events, "next_cursor": page.next_cursor}
