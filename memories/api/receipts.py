"""What a write answers: the remember receipt's schemas (memories.services.receipts)."""

from __future__ import annotations

from uuid import UUID

from ninja import Field, Schema

from memories.models import Status, Trust


class EvolutionOut(Schema):
    action: str = Field(
        ..., description="created, replaced, merged, disputed, quarantined, duplicate or unchanged."
    )
    version: int
    supersedes: UUID | None


class SimilarOut(Schema):
    id: UUID
    similarity: float
    relation: str | None = Field(None, description="duplicate, refines or related.")


class ContradictionOut(Schema):
    id: UUID
    reason: str
    similarity: float | None = None
    relation: str | None = Field(None, description="contradicts or supersedes.")


class RelationOut(Schema):
    id: UUID = Field(..., description="The existing memory this write was judged against.")
    relation: str = Field(
        ..., description="duplicate, refines, supersedes, contradicts or related."
    )
    confidence: float
    signals: list[str] = Field(..., description="Why: the signals that fired.")
    action: str = Field(
        ...,
        description="returned (the existing memory answers, nothing new written), linked, "
        "superseded (the old memory was retired), proposed (the owner decides in Review), "
        "disputed (your write is held: the owner's memory stands) or noted.",
    )


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
    relations: list[RelationOut] = Field(
        default_factory=list,
        description="What this write is to the close memories already there, and what was done.",
    )
    stands: UUID | None = Field(
        None, description="The owner's memory that stands when this write is disputed."
    )
