"""Input checks for memory writes, shared by remember and correct.

Every door validates its own wire format too, but the services never trust a door: each
value is checked here before anything is written.
"""

from __future__ import annotations

import unicodedata

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import (  # noqa: F401 - the field wordings, read by other apps too
    A_STRING,
    AT_MOST_ITEMS,
    EACH_AT_MOST,
    LIST_OF_STRINGS,
    NO_NUL,
    NON_EMPTY,
    ONE_OF,
    PRINTABLE,
    forbidden,
    validation_error,
)
from foundation.messages import known
from memories.contract import (  # noqa: F401 - the bounds live in the contract; read here
    MAX_HINT_CHARS,
    MAX_HINTS,
    MAX_IDEMPOTENCY_KEY_CHARS,
    MAX_KEY_CHARS,
    MAX_REASON_CHARS,
    MAX_SCOPE_KEY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
)
from memories.models import ConfidenceBasis, Kind, MemoryType, ScopeType, Trust, Visibility

# The type a kind has unless the writer says otherwise.
DEFAULT_TYPE = {
    Kind.EVENT: MemoryType.EPISODIC,
    Kind.OUTCOME: MemoryType.EPISODIC,
    Kind.TASK_STATE: MemoryType.EPISODIC,
    Kind.PROCEDURE: MemoryType.PROCEDURAL,
}

# Refusals a token's owner reads later on the Tokens page (accounts.refusals).
GLOBAL_RESTRICTED = known(
    gettext_noop(
        "This token is restricted to projects (%(projects)s); it cannot write global memories. "
        "Write with scope_type 'project' and one of its projects."
    )
)
PROJECT_WRITE = known(gettext_noop("This token is not allowed to write to project '%(project)s'."))


def choice(value, choices, field: str, default=None) -> str:
    if value is None and default is not None:
        return default
    if value not in choices.values:
        raise validation_error(ONE_OF, field=field, name=field, choices=", ".join(choices.values))
    return value


def _has_control_characters(text: str) -> bool:
    return any(unicodedata.category(char) == "Cc" for char in text)


def statement(value, field: str = "content") -> str:
    """Memory text: a string without NUL characters (PostgreSQL cannot store them), trimmed.
    Size and secrets are the write gate's business."""
    if not isinstance(value, str):
        raise validation_error(A_STRING, field=field, name=field)
    if "\x00" in value:
        raise validation_error(NO_NUL, field=field, name=field)
    return value.strip()


def label(value, field: str, max_chars: int, *, required: bool = True) -> str | None:
    """A short identifier-like string: trimmed, printable, bounded."""
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise validation_error(NON_EMPTY, field=field, name=field)
    value = value.strip()
    if len(value) > max_chars or _has_control_characters(value):
        raise validation_error(PRINTABLE, field=field, name=field, limit=max_chars)
    return value


def string_list(values, field: str, max_items: int, max_chars: int, *, fold: bool) -> list[str]:
    """A bounded list of short strings, trimmed and de-duplicated in order. The bound holds
    for the list as sent, before any work on its items: 20,000 tags took 16 s to
    de-duplicate before they were counted."""
    if values is None:
        return []
    if not isinstance(values, (list, tuple)):
        raise validation_error(LIST_OF_STRINGS, field=field, name=field)
    if len(values) > max_items:
        raise validation_error(AT_MOST_ITEMS, field=field, name=field, limit=max_items)
    if not all(isinstance(v, str) for v in values):
        raise validation_error(LIST_OF_STRINGS, field=field, name=field)
    cleaned: list[str] = []
    seen: set[str] = set()
    for value in values:
        if "\x00" in value:
            raise validation_error(NO_NUL, field=field, name=field)
        value = " ".join(value.split())
        if fold:
            value = value.casefold()
        if not value:
            continue
        if len(value) > max_chars:
            raise validation_error(EACH_AT_MOST, field=field, name=field, limit=max_chars)
        if value not in seen:
            seen.add(value)
            cleaned.append(value)
    return cleaned


def scope(actor: Actor, scope_type, scope_key) -> tuple[str, str]:
    """Resolve and authorise the scope a memory is written to."""
    scope_type = choice(scope_type, ScopeType, "scope_type", default=ScopeType.GLOBAL)
    if scope_type == ScopeType.GLOBAL:
        if scope_key not in (None, ""):
            raise validation_error(
                gettext_noop("A global memory has no scope_key."), field="scope_key"
            )
        if actor.is_agent and actor.token.allowed_projects:
            # Global memories reach every project's recall; a token kept to some projects
            # writes into those projects only.
            raise forbidden(
                GLOBAL_RESTRICTED, projects=", ".join(sorted(actor.token.allowed_projects))
            )
        return scope_type, ""
    if scope_type == ScopeType.AGENT and scope_key in (None, "") and actor.is_agent:
        scope_key = actor.agent_name
    scope_key = label(scope_key, "scope_key", MAX_SCOPE_KEY_CHARS)
    if scope_type == ScopeType.AGENT and actor.is_agent and scope_key != actor.agent_name:
        raise forbidden(
            gettext_noop("An agent writes agent-scoped memories only under its own name.")
        )
    if scope_type == ScopeType.PROJECT and not actor.may_touch_project(scope_key):
        raise forbidden(PROJECT_WRITE, project=scope_key)
    return scope_type, scope_key


def trust(actor: Actor, requested) -> str:
    """Agents write only inferred or observed; the owner's own writes default to confirmed."""
    if actor.is_owner:
        return choice(requested, Trust, "trust", default=Trust.CONFIRMED)
    trust_value = choice(requested, Trust, "trust", default=Trust.INFERRED)
    if trust_value not in (Trust.INFERRED, Trust.OBSERVED):
        raise forbidden(gettext_noop("Agents write only 'inferred' or 'observed' memories."))
    return trust_value


def visibility(actor: Actor, requested) -> str:
    value = choice(requested, Visibility, "visibility", default=Visibility.SHARED)
    if value == Visibility.PRIVATE and not actor.can_read_private:
        raise forbidden(gettext_noop("Writing a private memory needs the 'private:read' scope."))
    return value


def confidence(actor: Actor, value, basis) -> tuple[float | None, str]:
    """A confidence is never invented: it comes with the basis it rests on, or not at all."""
    if value is None and basis in (None, ""):
        return None, ""
    if value is None or basis in (None, ""):
        raise validation_error(
            gettext_noop("confidence and confidence_basis go together: give both or neither."),
            field="confidence" if value is None else "confidence_basis",
        )
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise validation_error(
            gettext_noop("confidence must be a number from 0 to 1."), field="confidence"
        )
    basis = choice(basis, ConfidenceBasis, "confidence_basis")
    if basis == ConfidenceBasis.USER_ASSERTED and actor.is_agent:
        raise forbidden(
            gettext_noop("Only the owner asserts a memory ('user_asserted'); agents cannot.")
        )
    return float(value), basis


def expected_version(value) -> int | None:
    """The version a compare-and-set write expects (0: that nothing holds the key yet)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise validation_error(
            gettext_noop("expected_version must be an integer ≥ 0."), field="expected_version"
        )
    return value


def reason(value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_REASON_CHARS:
        raise validation_error(
            gettext_noop("reason must be a string of at most %(limit)s characters."),
            field="reason", limit=MAX_REASON_CHARS,
        )  # fmt: skip
    return value.strip()
