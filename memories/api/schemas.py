"""Request and response schemas of the memory routes (`<Entity>In` / `<Entity>Out`).

Field names are the MCP tools' argument names (DESIGN §5). Schemas carry types, enums and
bounds, so the OpenAPI document tells an agent what is allowed; bounds, defaults and the
descriptions quoting them come from `memories.contract`, and everything else (scopes,
trust, projects, secrets, lengths after trimming) is left to the services, which are the
authority. The `Out` schemas of a memory, an event and a link declare exactly the fields of
`memories.shapes` for the `agent` audience, which the routes feed them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from ninja import Field, Schema
from pydantic import ConfigDict, StrictBool, StrictFloat, StrictInt

from memories import contract
from memories.models import (
    ConfidenceBasis,
    Kind,
    MemoryType,
    Relation,
    ScopeType,
    Status,
    Trust,
    Visibility,
)


class StrictIn(Schema):
    """Inputs refuse fields they do not know: a misspelt argument is an error, not a
    silently ignored value. JSON integers and booleans are not coerced from strings."""

    model_config = ConfigDict(extra="forbid")


# Times leave as the shapes write them (ISO 8601 with the offset, to the microsecond), so both
# agent doors send the same string for the same instant.
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
Content = Annotated[
    str,
    Field(
        description=contract.CONTENT,
        json_schema_extra={"maxLength": contract.MAX_CONTENT_CHARS},
    ),
]
Budget = Annotated[StrictInt, Field(ge=contract.MIN_TOKEN_BUDGET, le=contract.MAX_TOKEN_BUDGET)]


# --- writing -------------------------------------------------------------------------------


class MemoryFieldsIn(StrictIn):
    """What one memory says and where it lives: the fields of remember and of a checkpoint's
    atoms."""

    content: Content
    kind: Kind
    type: MemoryType | None = Field(None, description="Defaults from the kind.")
    scope_type: ScopeType | None = Field(None, description="Defaults to global.")
    scope_key: str | None = Field(
        None,
        description="github:owner/repo for a project, a task id, an agent name; none for global.",
    )
    key: str | None = Field(None, description="Logical key: one active memory per key and scope.")
    value: dict[str, Any] | None = Field(
        None, description="A JSON object; deep-merged by write_mode=merge."
    )
    write_mode: Literal["replace", "merge"] | None = Field(None, description="Default replace.")
    expected_version: StrictInt | None = Field(
        None,
        ge=0,
        description="Compare-and-set on a keyed write: the key's current version (0: new).",
    )
    tags: list[str] | None = None
    retrieval_hints: list[str] | None = Field(
        None, description="Other phrasings a later query may use."
    )
    confidence: StrictFloat | None = Field(
        None, ge=0, le=1, description="Only with confidence_basis."
    )
    confidence_basis: ConfidenceBasis | None = None
    trust: Trust | None = Field(
        None, description="Agents write inferred (the default) or observed."
    )
    visibility: Visibility | None = Field(None, description="private needs the private:read scope.")


class RememberIn(MemoryFieldsIn):
    idempotency_key: str | None = Field(
        None, description="A replay returns the first receipt unchanged."
    )


class CheckpointIn(StrictIn):
    summary: Content
    memories: list[MemoryFieldsIn] | None = Field(
        None,
        max_length=contract.CHECKPOINT_MAX_MEMORIES,
        description=contract.CHECKPOINT_MEMORIES,
    )
    project_key: str | None = None
    task_id: str | None = None


class CheckpointOut(Schema):
    summary_id: UUID
    memory_ids: list[UUID]


class ForgetIn(StrictIn):
    reason: str | None = Field(None, description="Why; kept in the history.")
    superseded_by: UUID | None = Field(None, description="The memory that replaces this one.")


class LinkIn(StrictIn):
    to_id: UUID | None = Field(None, description="Link to this memory, or…")
    uri: str | None = Field(None, description="…to this resource URI (scheme:...).")
    relation: Relation


class LinkOut(Schema):
    id: int
    from_id: UUID
    to_id: UUID | None = Field(..., description="The memory linked to; null for a resource.")
    uri: str | None = Field(..., description="The resource linked to; null for a memory.")
    relation: Relation
    created_by_agent: str | None = Field(..., description="null when the owner linked it.")
    created_at: Timestamp


# --- reading one memory --------------------------------------------------------------------


class MemoryOut(Schema):
    id: UUID
    content: str
    key: str | None
    value: dict[str, Any] | None
    type: MemoryType
    kind: Kind
    scope_type: ScopeType
    scope_key: str
    trust: Trust
    status: Status
    visibility: Visibility
    origin: str
    source_agent: str
    confidence: float | None
    confidence_basis: ConfidenceBasis | None
    version: int
    supersedes: UUID | None
    tags: list[str]
    retrieval_hints: list[str]
    created_at: Timestamp
    updated_at: Timestamp


class HistoryParams(StrictIn):
    limit: int = Field(
        contract.HISTORY_DEFAULT_LIMIT,
        ge=1,
        le=contract.HISTORY_MAX_LIMIT,
        description=contract.HISTORY_LIMIT,
    )
    cursor: str | None = Field(None, description="next_cursor of the previous page.")


class EventOut(Schema):
    id: int
    memory_id: UUID
    event_type: str
    version: int
    actor: str = Field(..., description="owner, or agent:<name>.")
    patch: dict[str, Any]
    result: dict[str, Any]
    reason: str | None
    created_at: Timestamp


class HistoryOut(Schema):
    events: list[EventOut]
    next_cursor: str | None


# --- retrieval -----------------------------------------------------------------------------


class RecallIn(StrictIn):
    query: str = Field(..., description="What to look for, in the user's words.")
    alt_queries: list[str] | None = Field(None, description="Other phrasings, or a translation.")
    project_key: str | None = None
    task_id: str | None = None
    kinds: list[Kind] | None = None
    limit: StrictInt | None = Field(
        None, ge=1, le=contract.RECALL_MAX_LIMIT, description=contract.RECALL_LIMIT
    )
    cursor: str | None = Field(None, description="next_cursor of the previous page of this query.")


class RecallParams(RecallIn):
    """The same arguments as query parameters; `alt_queries` and `kinds` repeat."""

    limit: int | None = Field(
        None, ge=1, le=contract.RECALL_MAX_LIMIT, description=contract.RECALL_LIMIT
    )


class RecallMemoryOut(Schema):
    id: UUID
    content: str
    kind: Kind
    type: MemoryType
    trust: Trust
    status: Status
    scope_type: ScopeType
    scope_key: str
    key: str | None
    version: int
    tags: list[str]
    source_agent: str
    updated_at: Timestamp
    score: float
    relevance: float = Field(..., description="Share of the query's terms found (1.0: exact key).")
    channels: dict[str, int] = Field(
        ..., description="Channel → this memory's rank in it (1-based)."
    )
    conflicts_with: list[UUID] = Field(
        default_factory=list,
        description="Memories you may read that this one contradicts: not both can be followed.",
    )


class RecallOut(Schema):
    memories: list[RecallMemoryOut]
    no_confident_match: bool
    next_cursor: str | None
    retrieval: dict[str, Any]


class ContextIn(StrictIn):
    query: str
    alt_queries: list[str] | None = None
    project_key: str | None = None
    task_id: str | None = None
    purpose: Literal[contract.PURPOSES] | None = Field(  # type: ignore[valid-type]
        None, description=contract.PURPOSE
    )
    token_budget: Budget | None = Field(None, description=contract.CONTEXT_BUDGET)
    max_memories: StrictInt | None = Field(
        None, ge=1, le=contract.CONTEXT_MAX_MEMORIES, description=contract.CONTEXT_MAX_MEMORIES_TEXT
    )


class ContextItemOut(Schema):
    id: UUID
    kind: Kind
    trust: Trust
    scope_type: ScopeType
    scope_key: str
    tokens: int
    reason: str


class OmittedOut(Schema):
    id: UUID
    reason: str


class BudgetOut(Schema):
    token_budget: int
    used: int
    remaining: int


class ContextOut(Schema):
    context: str
    items: list[ContextItemOut]
    omitted: list[OmittedOut]
    budget: BudgetOut
    no_confident_match: bool
    retrieval: dict[str, Any]


class BootstrapParams(StrictIn):
    project_key: str | None = None
    token_budget: int | None = Field(
        None,
        ge=contract.MIN_TOKEN_BUDGET,
        le=contract.MAX_TOKEN_BUDGET,
        description=contract.BOOTSTRAP_BUDGET,
    )


class BootstrapItemOut(Schema):
    id: UUID
    section: str
    kind: Kind
    trust: Trust
    tokens: int
    over_budget: bool


class BootstrapBudgetOut(BudgetOut):
    over_budget: bool


class BootstrapOut(Schema):
    context: str
    items: list[BootstrapItemOut]
    dropped_ids: list[UUID]
    budget: BootstrapBudgetOut


class QueryIn(StrictIn):
    query: str
    subqueries: list[str] | None = Field(
        None, description="The parts to answer; split from query when absent."
    )
    project_key: str | None = None
    task_id: str | None = None
    include_history: StrictBool | None = Field(
        None, description="Add earlier versions and sources."
    )
    max_steps: StrictInt | None = Field(
        None, ge=1, le=contract.QUERY_MAX_STEPS, description=contract.QUERY_STEPS
    )
    timeout_ms: StrictInt | None = Field(
        None,
        ge=contract.QUERY_MIN_TIMEOUT_MS,
        le=contract.QUERY_MAX_TIMEOUT_MS,
        description=contract.QUERY_TIMEOUT,
    )
    min_evidence: StrictInt | None = Field(
        None, ge=1, le=contract.QUERY_MAX_MIN_EVIDENCE, description=contract.QUERY_MIN_EVIDENCE
    )


class QueryStepOut(Schema):
    query: str
    memory_ids: list[UUID]
    no_confident_match: bool


class QueryOut(Schema):
    steps: list[QueryStepOut]
    evidence: list[dict[str, Any]]
    sufficiency: Literal["sufficient", "partial", "insufficient"]
    fallback: list[str]
