"""The vocabulary of memories: kinds, scopes, trust, status, relations, and the sets built from them."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

MAX_CONTENT_CHARS = 4000


class MemoryType(models.TextChoices):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"


class Kind(models.TextChoices):
    PREFERENCE = "preference"
    FACT = "fact"
    DECISION = "decision"
    CONSTRAINT = "constraint"
    ENTITY = "entity"
    EVENT = "event"
    OUTCOME = "outcome"
    LESSON = "lesson"
    PROCEDURE = "procedure"
    TASK_STATE = "task_state"


class ScopeType(models.TextChoices):
    GLOBAL = "global"
    PROJECT = "project"
    TASK = "task"
    AGENT = "agent"


class Trust(models.TextChoices):
    INFERRED = "inferred"
    OBSERVED = "observed"
    CONFIRMED = "confirmed"
    LOCKED = "locked"


class Status(models.TextChoices):
    ACTIVE = "active"
    DISPUTED = "disputed"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"


class Visibility(models.TextChoices):
    SHARED = "shared"
    PRIVATE = "private"


class Origin(models.TextChoices):
    USER = "user"
    AGENT = "agent"
    CAPTURE = "capture"
    IMPORT = "import"


class ConfidenceBasis(models.TextChoices):
    USER_ASSERTED = "user_asserted"
    AGENT_INFERRED = "agent_inferred"
    SOURCE_SUPPORTED = "source_supported"


class Relation(models.TextChoices):
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    SUPPORTS = "supports"
    DERIVED_FROM = "derived_from"
    RELATED_TO = "related_to"
    DUPLICATES = "duplicates"
    REFINES = "refines"


class EventType(models.TextChoices):
    CREATED = "created"
    REPLACED = "replaced"
    MERGED = "merged"
    CONFIRMED = "confirmed"
    LOCKED = "locked"
    UNLOCKED = "unlocked"
    CORRECTED = "corrected"
    ARCHIVED = "archived"
    RESTORED = "restored"
    SUPERSEDED = "superseded"
    LINKED = "linked"
    DELETED = "deleted"
    # The same statement again from another writer: the memory is corroborated, not copied.
    CORROBORATED = "corroborated"
    # The owner took back their own last confirm or lock: the trust it had before returns.
    UNDONE = "undone"


TRUST_RANK = {Trust.INFERRED: 0, Trust.OBSERVED: 1, Trust.CONFIRMED: 2, Trust.LOCKED: 3}
OWNER_TRUSTS = (Trust.CONFIRMED, Trust.LOCKED)
# A live memory takes part in recall and in the uniqueness of keys and fingerprints.
LIVE_STATUSES = (Status.ACTIVE, Status.DISPUTED)
# What recall searches: current statements, and superseded ones (ranked below successors).
SEARCHABLE_STATUSES = (Status.ACTIVE, Status.SUPERSEDED)
SEARCH_FIELDS = ("search_body", "search_aux", "search_scope")
SEARCH_SOURCE_FIELDS = frozenset(
    {"content", "tags", "retrieval_hints", "key", "kind", "scope_type", "scope_key", "visibility"}
)


def choice_check(
    field: str, choices: type[models.TextChoices], name: str
) -> models.CheckConstraint:
    """A database check that `field` holds one of `choices` (shared by every app's models)."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": choices.values}), name=name)
