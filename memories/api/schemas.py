"""Request and response schemas of the memory routes (`<Entity>In` / `<Entity>Out`).

Field names are the MCP tools' argument names (DESIGN §5). Schemas carry types, enums and
bounds, so the OpenAPI document tells an agent what is allowed; the bounds are the
services' own constants, and everything else (scopes, trust, projects, secrets, lengths
after trimming) is left to the services, which are the authority.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from ninja import Field, Schema
from pydantic import ConfigDict, StrictBool, StrictFloat, StrictInt

from memories.gates import MAX_CONTENT_CHARS
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
from memories.retrieval import MAX_LIMIT, MAX_TOKEN_BUDGET, MIN_TOKEN_BUDGET, PURPOSES
from memories.retrieval.context import MAX_CONTEXT_MEMORIES
from memories.retrieval.query import MAX_STEPS, MAX_TIMEOUT_MS
from memories.selectors import HISTORY_MAX_LIMIT
from memories.services.checkpoint import MAX_ATOMS


class StrictIn(Schema):
    """Inputs refuse fields they do not know: a misspelt argument is an error, not a
    silently ignored value. JSON integers and booleans are not coerced from strings."""

    model_config = ConfigDict(extra="forbid")


Content = Annotated[
    str,
    Field(
        description="One stable statement, at most 4,000 characters once trimmed.",
        json_schema_extra={"maxLength": MAX_CONTENT_CHARS},
    ),
]
Budget = Annotated[StrictInt, Field(ge=MIN_TOKEN_BUDGET, le=MAX_TOKEN_BUDGET)]


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


class EvolutionOut(Schema):
    action: str = Field(
        ..., description="created, replaced, merged, disputed, quarantined, duplicate or unchanged."
    )
    version: int
    supersedes: UUID | None


class SimilarOut(Schema):
    id: UUID
    similarity: float


class ContradictionOut(Schema):
    id: UUID
    reason: str
    similarity: float | None = None


class QuarantineOut(Schema):
    rule: str
    field: str
    excerpt: str


class RememberOut(Schema):
    id: UUID
    version: int
    trust: Trust
    status: Status
    evolution: EvolutionOut
    duplicate_of: UUID | None
    similar: list[SimilarOut]
    contradictions: list[ContradictionOut]
    quarantine: list[QuarantineOut] = Field(
        default_factory=list,
        description="Why the write was quarantined (stored disputed, out of recall until the owner reviews it).",
    )


class CheckpointIn(StrictIn):
    summary: Content
    memories: list[MemoryFieldsIn] | None = Field(
        None,
        max_length=MAX_ATOMS,
        description="Durable facts learned; each linked derived_from the summary.",
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
    from_id: UUID = Field(..., alias="from_memory_id")
    to_id: UUID | None = Field(None, alias="to_memory_id")
    uri: str
    relation: Relation
    created_by_agent: str
    created_at: datetime


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
    confidence_basis: str
    version: int
    supersedes: UUID | None = Field(None, alias="supersedes_id")
    tags: list[str]
    retrieval_hints: list[str]
    access_count: int
    last_accessed_at: datetime | None
    verified_at: datetime | None
    created_at: datetime
    updated_at: datetime


class HistoryParams(StrictIn):
    limit: int = Field(50, ge=1, le=HISTORY_MAX_LIMIT)
    cursor: str | None = Field(None, description="next_cursor of the previous page.")


class EventOut(Schema):
    id: int
    memory_id: UUID
    event_type: str
    version: int
    actor: str = Field(..., alias="actor_label", description="owner, or agent:<name>.")
    actor_agent: str
    patch: dict[str, Any]
    result: dict[str, Any]
    reason: str
    created_at: datetime


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
    limit: StrictInt | None = Field(None, ge=1, le=MAX_LIMIT, description="Default 20.")
    cursor: str | None = Field(None, description="next_cursor of the previous page of this query.")


class RecallParams(RecallIn):
    """The same arguments as query parameters; `alt_queries` and `kinds` repeat."""

    limit: int | None = Field(None, ge=1, le=MAX_LIMIT, description="Default 20.")


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
    updated_at: datetime
    score: float
    relevance: float = Field(..., description="Share of the query's terms found (1.0: exact key).")
    channels: dict[str, int] = Field(
        ..., description="Channel → this memory's rank in it (1-based)."
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
    purpose: Literal[PURPOSES] | None = Field(  # type: ignore[valid-type]
        None, description="Default general."
    )
    token_budget: Budget | None = Field(None, description="Default 2000.")
    max_memories: StrictInt | None = Field(
        None, ge=1, le=MAX_CONTEXT_MEMORIES, description="Default 20."
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
        None, ge=MIN_TOKEN_BUDGET, le=MAX_TOKEN_BUDGET, description="Default 1500."
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
    max_steps: StrictInt | None = Field(None, ge=1, le=MAX_STEPS, description="Default 4.")
    timeout_ms: StrictInt | None = Field(
        None, ge=10, le=MAX_TIMEOUT_MS, description="Default 2000."
    )
    min_evidence: StrictInt | None = Field(None, ge=1, description="Default 1.")


class QueryStepOut(Schema):
    query: str
    memory_ids: list[UUID]
    no_confident_match: bool


class QueryOut(Schema):
    steps: list[QueryStepOut]
    evidence: list[dict[str, Any]]
    sufficiency: Literal["sufficient", "partial", "insufficient"]
    fallback: list[str]
