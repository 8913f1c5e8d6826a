"""Typed links between memories, or from a memory to a resource URI."""

from __future__ import annotations

import re

from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import validation_error
from memories import gates
from memories.contract import MAX_URI_CHARS
from memories.models import EventType, MemoryLink, Relation
from memories.services.common import (
    atomic_change,
    memory_for_write,
    record_event,
    refuse_agent_on_owner_trusted,
)
from memories.services.validation import choice

URI_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


@atomic_change
def memory_link(
    *, actor: Actor, from_id, relation: str, to_id=None, uri: str | None = None
) -> MemoryLink:
    """Link a memory to another memory or to a URI. Idempotent: the same link twice is one
    link. `supersedes` is not set by linking; superseding goes through memory_forget, which
    also retires the old memory. An agent links neither from nor to a memory the owner
    confirmed or locked (FORBIDDEN): the owner's memories change only by the owner."""
    relation = choice(relation, Relation, "relation")
    if relation == Relation.SUPERSEDES:
        raise validation_error(
            gettext_noop(
                "Use forget with superseded_by to supersede a memory; it also retires the old one."
            ),
            field="relation",
        )
    if (to_id is None) == (uri in (None, "")):
        raise validation_error(gettext_noop("Give exactly one of to_id or uri."), field="to_id")
    source = memory_for_write(actor=actor, memory_id=from_id)
    target = None
    if to_id is not None:
        target = memory_for_write(actor=actor, memory_id=to_id)
        refuse_agent_on_owner_trusted(actor, target, gettext_noop("link to"))
        if target.pk == source.pk:
            raise validation_error(gettext_noop("A memory cannot link to itself."), field="to_id")
        uri = ""
    else:
        if not isinstance(uri, str) or len(uri) > MAX_URI_CHARS or not URI_PATTERN.match(uri):
            raise validation_error(
                gettext_noop(
                    "uri must be an absolute URI (scheme:...) of at most %(limit)s characters."
                ),
                field="uri",
                limit=MAX_URI_CHARS,
            )
        gates.gate_secrets(uri=uri)
    # Checked once both ends are known to be visible, so a refusal names nothing unseen.
    refuse_agent_on_owner_trusted(actor, source, gettext_noop("link"))
    link, created = MemoryLink.objects.get_or_create(
        owner=actor.user,
        from_memory=source,
        to_memory=target,
        uri=uri,
        relation=relation,
        defaults={"created_by_agent": actor.agent_name},
    )
    if created:
        record_event(
            actor=actor,
            memory=source,
            event_type=EventType.LINKED,
            patch={"relation": relation, "to_id": str(target.pk) if target else None, "uri": uri},
        )
    return link
