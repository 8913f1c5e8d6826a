"""The argument types of the memory tools: enums, bounds (the contract's) and the words an
agent reads for each argument."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from pydantic import Field

from memories import contract
from memories.contract import MAX_ALT_QUERIES, MAX_CURSOR_CHARS, MAX_QUERY_CHARS
from memories.models import Kind, MemoryType, Relation, ScopeType

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
Purpose = Literal[contract.PURPOSES]

# The services check every bound again; the schema states them so a model gets them right.
MAX_KINDS = len(Kind.values)

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
        max_length=contract.MAX_SCOPE_KEY_CHARS,
        description="The current project, e.g. 'github:owner/repo'. Recall then covers global "
        "memories plus this project's, and never another project's.",
    ),
]
TaskId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=contract.MAX_SCOPE_KEY_CHARS,
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
    list[Annotated[str, Field(min_length=1, max_length=contract.MAX_TAG_CHARS)]] | None,
    Field(max_length=contract.MAX_TAGS, description="Short labels, e.g. ['testing', 'python']."),
]
RetrievalHints = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=contract.MAX_HINT_CHARS)]] | None,
    Field(
        max_length=contract.MAX_HINTS,
        description="How a future search may ask for this memory, so recall finds it: the "
        "statement in the other language (English <-> Chinese), then the words a future "
        "question would likely use (synonyms, the problem it solves).",
    ),
]
