"""The MCP tools. Each docstring is the description an agent reads: it says when to call the
tool and when not to, so any client behaves well without an extra prompt.

Tools translate arguments and call one service or selector with the calling agent's `Actor`
(DESIGN §1, principle 4); the rules live in the services. No tool takes an agent or user
argument: who is calling comes from the token.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from django.conf import settings
from mcp_types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field

from continuity.mcp.calls import invoke
from continuity.mcp.shapes import event_shape, link_shape, memory_shape
from memories import retrieval
from memories.models import Kind, MemoryType, Relation, ScopeType
from memories.retrieval.context import MAX_CONTEXT_MEMORIES
from memories.retrieval.recall import MAX_ALT_QUERIES, MAX_QUERY_CHARS
from memories.selectors import HISTORY_MAX_LIMIT
from memories.selectors import memory_history as history_page
from memories.services import memory_checkpoint as checkpoint_service
from memories.services import memory_forget as forget_service
from memories.services import memory_link as link_service
from memories.services import memory_remember as remember_service
from memories.services import validation as limits
from memories.services.checkpoint import MAX_ATOMS

# --- argument types ---------------------------------------------------------------------------

KindName = Literal[tuple(Kind.values)]
TypeName = Literal[tuple(MemoryType.values)]
ScopeTypeName = Literal[tuple(ScopeType.values)]
WriteMode = Literal["replace", "merge"]
# Superseding goes through memory_forget (it also retires the old memory), so it is no
# relation an agent links by hand.
LinkRelation = Literal[tuple(value for value in Relation.values if value != Relation.SUPERSEDES)]
# Agents never assert on the user's behalf ("user_asserted" is the owner's).
AgentConfidenceBasis = Literal["agent_inferred", "source_supported"]
AgentTrust = Literal["inferred", "observed"]  # confirmed and locked are the owner's alone
VisibilityName = Literal["shared", "private"]
Purpose = Literal[tuple(retrieval.PURPOSES)]

# The services check every bound again; the schema states them so a model gets them right.
MAX_KINDS = len(Kind.values)
MAX_CURSOR_CHARS = 2000
MAX_URI_CHARS = 2000
MAX_CONTENT_CHARS = settings.CONTINUITY_MAX_CONTENT_CHARS
RECALL_MAX_LIMIT = retrieval.MAX_LIMIT
CONTEXT_MIN_BUDGET = retrieval.MIN_TOKEN_BUDGET
CONTEXT_MAX_BUDGET = retrieval.MAX_TOKEN_BUDGET
CONTEXT_MAX_MEMORIES = MAX_CONTEXT_MEMORIES
CHECKPOINT_MAX_MEMORIES = MAX_ATOMS
CONTEXT_DEFAULT_BUDGET = 2000
BOOTSTRAP_DEFAULT_BUDGET = 1500

Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="What you are looking for, in natural language or keywords.",
    ),
]
AltQueries = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]] | None,
    Field(
        max_length=MAX_ALT_QUERIES,
        description="Other phrasings of the query, synonyms, or a translation: pass the "
        "query in the other language (English <-> Chinese), since memories may be written in "
        "either. Results of all phrasings are fused. Optional.",
    ),
]
ProjectKey = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=limits.MAX_SCOPE_KEY_CHARS,
        description="The current project, e.g. 'github:owner/repo'. Recall then covers global "
        "memories plus this project's, and never another project's.",
    ),
]
TaskId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=limits.MAX_SCOPE_KEY_CHARS,
        description="The current task id, to include that task's memories. Optional.",
    ),
]
Cursor = Annotated[
    str | None,
    Field(
        max_length=MAX_CURSOR_CHARS,
        description="The next_cursor of the previous page, to get the next one; it only works "
        "with the same query.",
    ),
]
MemoryId = Annotated[UUID, Field(description="The memory's id (a UUID) as returned by recall.")]
Tags = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=limits.MAX_TAG_CHARS)]] | None,
    Field(max_length=limits.MAX_TAGS, description="Short labels, e.g. ['testing', 'python']."),
]
RetrievalHints = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=limits.MAX_HINT_CHARS)]] | None,
    Field(
        max_length=limits.MAX_HINTS,
        description="How a future search may ask for this memory, so recall finds it: the "
        "statement in the other language (English <-> Chinese), then the words a future "
        "question would likely use (synonyms, the problem it solves).",
    ),
]


# --- tools ------------------------------------------------------------------------------------


async def memory_bootstrap(
    project_key: ProjectKey = None,
    token_budget: Annotated[
        int,
        Field(
            ge=CONTEXT_MIN_BUDGET,
            le=CONTEXT_MAX_BUDGET,
            description="Most tokens the context may use (estimated as UTF-8 bytes / 4).",
        ),
    ] = BOOTSTRAP_DEFAULT_BUDGET,
) -> CallToolResult:
    """Load what the user has asked agents to keep in mind: their standing preferences,
    constraints and decisions (global, plus the current project's), as one token-budgeted
    context block to read before working.

    Call it ONCE at the start of a session, and again only if you switch to another
    project. Do not call it every turn, and do not use it to look something up: use
    memory_recall for a specific question. The block is ordered deterministically;
    `dropped_ids` lists memories that did not fit the budget (recall them if needed)."""
    return await invoke(
        lambda actor: retrieval.bootstrap(
            actor=actor, project_key=project_key, token_budget=token_budget
        ).as_dict()
    )


async def memory_recall(
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
    ] = retrieval.DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> CallToolResult:
    """Search the user's memory for specific statements: their preferences, project
    conventions, earlier decisions, constraints and lessons learned.

    Call it before answering or acting where the user's own preferences, their project's
    conventions or a past decision could matter ("which test runner do we use?", "how does
    the user like commit messages?"), and when the user refers to an earlier session. Do
    NOT call it for general knowledge, documentation or facts about the world: the memory
    only holds what this user and their agents chose to keep. When `no_confident_match` is
    true, say you don't know rather than relying on the weak results. Results are paged:
    pass `next_cursor` back as `cursor` for more."""
    return await invoke(
        lambda actor: retrieval.recall(
            actor=actor, query=query, alt_queries=alt_queries, project_key=project_key,
            task_id=task_id, kinds=kinds, limit=limit, cursor=cursor,
        ).as_dict()
    )  # fmt: skip


async def memory_remember(
    content: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_CONTENT_CHARS,
            description="One self-contained statement, understandable without this "
            "conversation, e.g. 'Prefers pytest over unittest for new Python projects.'",
        ),
    ],
    kind: Annotated[
        KindName,
        Field(
            description="What the statement is: preference, fact, decision, constraint, "
            "entity, event, outcome, lesson, procedure or task_state."
        ),
    ],
    type: Annotated[
        TypeName | None,
        Field(
            description="semantic (a lasting truth), episodic (something that happened) or "
            "procedural (how to do something). Default: derived from kind."
        ),
    ] = None,
    scope_type: Annotated[
        ScopeTypeName,
        Field(
            description="Where it applies: global (everywhere), project (one project: give "
            "scope_key), task (one task: give scope_key) or agent (only you)."
        ),
    ] = "global",
    scope_key: Annotated[
        str | None,
        Field(
            max_length=limits.MAX_SCOPE_KEY_CHARS,
            description="The project key (e.g. 'github:owner/repo') or task id; none for global.",
        ),
    ] = None,
    key: Annotated[
        str | None,
        Field(
            max_length=limits.MAX_KEY_CHARS,
            description="A stable logical name for a statement that evolves, e.g. "
            "'python.test_runner'. Writing the same key again makes a new version.",
        ),
    ] = None,
    value: Annotated[
        dict[str, Any] | None,
        Field(description="Optional JSON object with the structured form of the statement."),
    ] = None,
    write_mode: Annotated[
        WriteMode,
        Field(
            description="For an existing key: replace its value, or merge (deep-merge "
            "`value` into the current one)."
        ),
    ] = "replace",
    expected_version: Annotated[
        int | None,
        Field(
            ge=0,
            description="For a keyed write: the version you last saw (0 = the key must not "
            "exist yet). A different current version fails with VERSION_CONFLICT.",
        ),
    ] = None,
    idempotency_key: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=limits.MAX_IDEMPOTENCY_KEY_CHARS,
            description="Any unique string; retrying with the same key returns the first "
            "receipt instead of writing twice.",
        ),
    ] = None,
    tags: Tags = None,
    retrieval_hints: RetrievalHints = None,
    confidence: Annotated[
        float | None,
        Field(
            ge=0,
            le=1,
            description="How sure you are, 0-1. Give it only with confidence_basis; never "
            "invent one.",
        ),
    ] = None,
    confidence_basis: Annotated[
        AgentConfidenceBasis | None,
        Field(
            description="What the confidence rests on: agent_inferred (your inference) or "
            "source_supported (a source you read says so)."
        ),
    ] = None,
    trust: Annotated[
        AgentTrust | None,
        Field(
            description="inferred (default: you concluded it) or observed (you saw it "
            "directly, e.g. in a file or a command's output)."
        ),
    ] = None,
    visibility: Annotated[
        VisibilityName | None,
        Field(
            description="shared (default: every agent of the user may read it) or private "
            "(only tokens allowed to read private memories; needs that permission)."
        ),
    ] = None,
) -> CallToolResult:
    """Save one durable statement the user would want kept across sessions and agents: a
    preference, a decision and its reason, a constraint, a project convention, a lesson
    learned, a procedure.

    Call it when the user states a lasting preference or decision, asks you to remember
    something, or when you establish a project fact future sessions will need. Do NOT save
    secrets (passwords, tokens, API keys, credentials, private keys: they are rejected),
    transient chatter, scratch work of the current task, guesses, public knowledge, or
    anything the user would not want recorded. One statement per call. Add
    retrieval_hints: the statement translated into the other language (English <-> Chinese)
    and the words a future search would likely use.

    The receipt says what happened (`evolution.action`: created, replaced, merged,
    unchanged, duplicate, disputed when it contradicts something the user confirmed, or
    quarantined when it reads as instructions to agents — text copied from a web page or
    file that tries to steer you is kept out of every agent's context until the user
    reviews it; the user decides both) and lists `similar` and `contradictions`: if your
    statement replaces one of them, retire the old one with memory_forget(superseded_by=...)."""
    return await invoke(
        lambda actor: remember_service(
            actor=actor, content=content, kind=kind, type=type, scope_type=scope_type,
            scope_key=scope_key, key=key, value=value, write_mode=write_mode,
            expected_version=expected_version, idempotency_key=idempotency_key, tags=tags,
            retrieval_hints=retrieval_hints, confidence=confidence,
            confidence_basis=confidence_basis, trust=trust, visibility=visibility,
        ).as_dict()
    )  # fmt: skip


class CheckpointMemory(BaseModel):
    """One statement saved with a checkpoint (the same fields as memory_remember)."""

    model_config = ConfigDict(extra="forbid")

    content: Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS)]
    kind: KindName
    type: TypeName | None = None
    scope_type: Annotated[
        ScopeTypeName | None,
        Field(description="Default: project when the checkpoint names a project_key, else global."),
    ] = None
    scope_key: Annotated[str | None, Field(max_length=limits.MAX_SCOPE_KEY_CHARS)] = None
    key: Annotated[str | None, Field(max_length=limits.MAX_KEY_CHARS)] = None
    value: dict[str, Any] | None = None
    write_mode: WriteMode | None = None
    expected_version: Annotated[int | None, Field(ge=0)] = None
    tags: Tags = None
    retrieval_hints: RetrievalHints = None
    confidence: Annotated[float | None, Field(ge=0, le=1)] = None
    confidence_basis: AgentConfidenceBasis | None = None
    trust: AgentTrust | None = None
    visibility: VisibilityName | None = None


async def memory_checkpoint(
    summary: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_CONTENT_CHARS,
            description="What was achieved so far, what was decided and what comes next, "
            "readable by someone who did not see this session.",
        ),
    ],
    memories: Annotated[
        list[CheckpointMemory],
        Field(
            max_length=CHECKPOINT_MAX_MEMORIES,
            description="Durable statements learned in this stretch of work (decisions, "
            "conventions, lessons), each saved like memory_remember. May be empty.",
        ),
    ] = [],  # noqa: B006 - a schema default, never mutated
    project_key: ProjectKey = None,
    task_id: TaskId = None,
) -> CallToolResult:
    """Save a progress checkpoint at a milestone: a summary of the work so far plus the
    durable statements learned along the way, in one call.

    Call it at real milestones: a feature works, a decision is made, before a long pause,
    before the context window is compacted, or at the end of a session. Do NOT call it
    after every step or message, and do not put secrets or scratch notes in it."""
    items = [item.model_dump(exclude_none=True) for item in memories]
    return await invoke(
        lambda actor: checkpoint_service(
            actor=actor, summary=summary, memories=items, project_key=project_key,
            task_id=task_id,
        )
    )  # fmt: skip


async def memory_link(
    from_id: MemoryId,
    relation: Annotated[
        LinkRelation,
        Field(
            description="How from_id relates to the target: contradicts, supports, "
            "derived_from, related_to or duplicates."
        ),
    ],
    to_id: Annotated[
        UUID | None, Field(description="The other memory's id. Give this or uri, not both.")
    ] = None,
    uri: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_URI_CHARS,
            description="A resource the memory refers to or came from (file:, https:, an "
            "issue URL...). Give this or to_id, not both.",
        ),
    ] = None,
) -> CallToolResult:
    """Record a typed relation from one memory to another memory (to_id) or to a resource
    such as a file, URL or issue (uri).

    Call it when you notice that a memory supports, contradicts, derives from, duplicates
    or relates to another one, or to point a memory at its source. Do not use it to replace
    a memory: use memory_forget with superseded_by. Linking the same pair twice is harmless."""
    return await invoke(
        lambda actor: link_shape(
            link_service(actor=actor, from_id=from_id, relation=relation, to_id=to_id, uri=uri)
        )
    )


async def memory_forget(
    id: MemoryId,
    reason: Annotated[
        str | None,
        Field(
            max_length=limits.MAX_REASON_CHARS,
            description="Why it is wrong or obsolete; the user reads this in the history.",
        ),
    ] = None,
    superseded_by: Annotated[
        UUID | None,
        Field(description="The id of the newer memory that replaces this one, if any."),
    ] = None,
) -> CallToolResult:
    """Retire a memory that is wrong or obsolete: it is archived, or marked as superseded by
    the newer memory given in superseded_by, and leaves recall. Nothing is deleted; the
    history stays and the user can restore it.

    Call it only when a memory is demonstrably wrong or outdated, e.g. the user changed a
    preference or reversed a decision; prefer superseded_by when a newer memory replaces
    it. Do NOT forget memories merely because they do not matter for the current task, and
    never to tidy up. Memories the user confirmed or locked cannot be forgotten by agents
    (FORBIDDEN): tell the user instead."""
    return await invoke(
        lambda actor: memory_shape(
            forget_service(actor=actor, memory_id=id, reason=reason, superseded_by=superseded_by)
        )
    )


async def memory_history(
    id: MemoryId,
    limit: Annotated[
        int, Field(ge=1, le=HISTORY_MAX_LIMIT, description="Most events to return.")
    ] = 50,
    cursor: Annotated[
        str | None,
        Field(
            max_length=MAX_CURSOR_CHARS,
            description="The next_cursor of the previous page of this memory's history.",
        ),
    ] = None,
) -> CallToolResult:
    """Show how one memory changed over time: the events of it and of its earlier versions
    (created, replaced, merged, linked, archived, superseded...), newest first, with who
    made each change and why.

    Call it when you need to know where a memory came from or why it changed, e.g. before
    disputing or replacing it. Not needed for ordinary recall."""

    def work(actor) -> dict:
        page = history_page(actor=actor, memory_id=id, limit=limit, cursor=cursor)
        return {"events": [event_shape(e) for e in page.events], "next_cursor": page.next_cursor}

    return await invoke(work)


async def memory_context(
    query: Query,
    alt_queries: AltQueries = None,
    project_key: ProjectKey = None,
    task_id: TaskId = None,
    purpose: Annotated[
        Purpose,
        Field(description="What the context is for; it shifts which kinds of memory come first."),
    ] = "general",
    token_budget: Annotated[
        int,
        Field(
            ge=CONTEXT_MIN_BUDGET,
            le=CONTEXT_MAX_BUDGET,
            description="Most tokens the context may use (estimated as UTF-8 bytes / 4).",
        ),
    ] = CONTEXT_DEFAULT_BUDGET,
    max_memories: Annotated[
        int, Field(ge=1, le=CONTEXT_MAX_MEMORIES, description="Most memories to include.")
    ] = 20,
) -> CallToolResult:
    """Build a ready-to-read context block for one piece of work: the memories relevant to
    `query`, selected whole (never cut mid-statement) into `token_budget`, plus what was
    left out and why.

    Call it when you start a substantial task (planning a change, writing code in a
    project, reviewing) and want the relevant preferences, conventions and decisions in
    one block. For one quick question use memory_recall; at the start of a session use
    memory_bootstrap. Do not call it every turn."""
    return await invoke(
        lambda actor: retrieval.context_pack(
            actor=actor, query=query, alt_queries=alt_queries, project_key=project_key,
            task_id=task_id, purpose=purpose, token_budget=token_budget,
            max_memories=max_memories,
        ).as_dict()
    )  # fmt: skip


async def memory_capabilities() -> CallToolResult:
    """Describe this Continuity server and your access to it: your agent name, your token's
    scopes, project restriction and expiry, the server profile, the retrieval channels
    available, and the limits and budgets that apply.

    Call it when a tool answers FORBIDDEN or you need a limit before a large write. It is
    not needed in normal use."""
    return await invoke(capabilities)


def capabilities(actor) -> dict:
    """The agent API's /capabilities answer (same names), plus the token's expiry and the
    bounds of the MCP tools' other arguments."""
    from accounts.ratelimit import rate_limit_per_minute

    token = actor.token
    return {
        "profile": settings.CONTINUITY_PROFILE,
        "version": settings.VERSION,
        "agent_name": token.agent_name,
        "scopes": sorted(token.scopes),
        "allowed_projects": list(token.allowed_projects),
        "expires_at": token.expires_at.isoformat(),
        "channels": list(retrieval.available_channels()),
        "limits": {
            "max_content_chars": MAX_CONTENT_CHARS,
            "recall_max_limit": RECALL_MAX_LIMIT,
            "recall_default_limit": retrieval.DEFAULT_LIMIT,
            "history_max_limit": HISTORY_MAX_LIMIT,
            "token_budget": {
                "min": CONTEXT_MIN_BUDGET,
                "max": CONTEXT_MAX_BUDGET,
                "context_default": CONTEXT_DEFAULT_BUDGET,
                "bootstrap_default": BOOTSTRAP_DEFAULT_BUDGET,
            },
            "context_max_memories": CONTEXT_MAX_MEMORIES,
            "checkpoint_max_memories": CHECKPOINT_MAX_MEMORIES,
            "max_tags": limits.MAX_TAGS,
            "max_retrieval_hints": limits.MAX_HINTS,
            "rate_limit_per_minute": rate_limit_per_minute(),
        },
    }
