"""The memory tools that write: remember, checkpoint, link and forget. Agents write only
inferred or observed memories and never displace what the owner confirmed (the services'
rules); the argument enums already leave out what agents may not ask for."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from foundation.actors import Actor
from memories import contract
from memories.contract import CHECKPOINT_MAX_MEMORIES, MAX_CONTENT_CHARS, MAX_URI_CHARS
from memories.mcp_tools.arguments import (
    AgentConfidenceBasis,
    AgentTrust,
    KindName,
    LinkRelation,
    MemoryId,
    ProjectKey,
    RetrievalHints,
    ScopeTypeName,
    Tags,
    TaskId,
    TypeName,
    VisibilityName,
    WriteMode,
)
from memories.services import memory_checkpoint as checkpoint_service
from memories.services import memory_forget as forget_service
from memories.services import memory_link as link_service
from memories.services import memory_remember as remember_service
from memories.shapes import link_shape, memory_shape


def memory_remember(
    actor: Actor,
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
            max_length=contract.MAX_SCOPE_KEY_CHARS,
            description="The project key (e.g. 'github:owner/repo') or task id; none for global.",
        ),
    ] = None,
    key: Annotated[
        str | None,
        Field(
            max_length=contract.MAX_KEY_CHARS,
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
            max_length=contract.MAX_IDEMPOTENCY_KEY_CHARS,
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
) -> dict:
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
    reviews it; the user decides both). `relations` lists what your statement is to close
    memories already there — duplicate, refines, supersedes, contradicts or related — with
    the signals and the action taken: `returned` (the existing memory already says it: its
    id is the receipt's), `superseded` (the old one was retired), `proposed` (the user
    decides), `disputed` (the user's confirmed memory stands, named in `stands`: follow it).
    If you meant to replace a memory the relation did not retire, retire it with
    memory_forget(superseded_by=...); if a contradiction is real, tell the user."""
    return remember_service(
        actor=actor, content=content, kind=kind, type=type, scope_type=scope_type,
        scope_key=scope_key, key=key, value=value, write_mode=write_mode,
        expected_version=expected_version, idempotency_key=idempotency_key, tags=tags,
        retrieval_hints=retrieval_hints, confidence=confidence,
        confidence_basis=confidence_basis, trust=trust, visibility=visibility,
    ).as_dict()  # fmt: skip


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
    scope_key: Annotated[str | None, Field(max_length=contract.MAX_SCOPE_KEY_CHARS)] = None
    key: Annotated[str | None, Field(max_length=contract.MAX_KEY_CHARS)] = None
    value: dict[str, Any] | None = None
    write_mode: WriteMode | None = None
    expected_version: Annotated[int | None, Field(ge=0)] = None
    tags: Tags = None
    retrieval_hints: RetrievalHints = None
    confidence: Annotated[float | None, Field(ge=0, le=1)] = None
    confidence_basis: AgentConfidenceBasis | None = None
    trust: AgentTrust | None = None
    visibility: VisibilityName | None = None


def memory_checkpoint(
    actor: Actor,
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
) -> dict:
    """Save a progress checkpoint at a milestone: a summary of the work so far plus the
    durable statements learned along the way, in one call.

    Call it at real milestones: a feature works, a decision is made, before a long pause,
    before the context window is compacted, or at the end of a session. Do NOT call it
    after every step or message, and do not put secrets or scratch notes in it."""
    items = [item.model_dump(exclude_none=True) for item in memories]
    return checkpoint_service(
        actor=actor, summary=summary, memories=items, project_key=project_key,
        task_id=task_id,
    )  # fmt: skip


def memory_link(
    actor: Actor,
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
) -> dict:
    """Record a typed relation from one memory to another memory (to_id) or to a resource
    such as a file, URL or issue (uri).

    Call it when you notice that a memory supports, contradicts, derives from, duplicates
    or relates to another one, or to point a memory at its source. Do not use it to replace
    a memory: use memory_forget with superseded_by. Linking the same pair twice is harmless."""
    link = link_service(actor=actor, from_id=from_id, relation=relation, to_id=to_id, uri=uri)
    return link_shape(link, "agent")


def memory_forget(
    actor: Actor,
    id: MemoryId,
    reason: Annotated[
        str | None,
        Field(
            max_length=contract.MAX_REASON_CHARS,
            description="Why it is wrong or obsolete; the user reads this in the history.",
        ),
    ] = None,
    superseded_by: Annotated[
        UUID | None,
        Field(description="The id of the newer memory that replaces this one, if any."),
    ] = None,
) -> dict:
    """Retire a memory that is wrong or obsolete: it is archived, or marked as superseded by
    the newer memory given in superseded_by, and leaves recall. Nothing is deleted; the
    history stays and the user can restore it.

    Call it only when a memory is demonstrably wrong or outdated, e.g. the user changed a
    preference or reversed a decision; prefer superseded_by when a newer memory replaces
    it. Do NOT forget memories merely because they do not matter for the current task, and
    never to tidy up. Memories the user confirmed or locked cannot be forgotten by agents
    (FORBIDDEN): tell the user instead."""
    memory = forget_service(actor=actor, memory_id=id, reason=reason, superseded_by=superseded_by)
    return memory_shape(memory, "agent")
