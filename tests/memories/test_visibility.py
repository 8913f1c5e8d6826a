"""The in-hand visibility rule agrees with the queryset rule for every kind of caller."""

import pytest

from foundation.actors import Actor
from memories.models import Memory
from memories.selectors import is_visible_to, memories_visible_to
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db


def test_is_visible_to_matches_memories_visible_to(owner_actor, other_owner, make_token):
    remember(owner_actor, "global shared")
    remember(owner_actor, "global private", visibility="private")
    remember(owner_actor, "web project", scope_type="project", scope_key="github:acme/web")
    remember(owner_actor, "api project", scope_type="project", scope_key="github:acme/api")
    remember(owner_actor, "claude note", scope_type="agent", scope_key="claude-code")
    remember(owner_actor, "codex note", scope_type="agent", scope_key="codex")
    remember(Actor.owner(other_owner), "someone else's memory")
    held = remember(owner_actor, "held for the owner")
    Memory.objects.filter(pk=held.id).update(held=True, status="superseded")
    disputed = remember(owner_actor, "disputed, marker unset")
    Memory.objects.filter(pk=disputed.id).update(status="disputed")
    callers = [
        owner_actor,
        Actor.owner(other_owner),
        Actor.agent(make_token("claude-code")[0]),
        Actor.agent(make_token("codex", scopes=["memories:read", "private:read"])[0]),
        Actor.agent(make_token("cursor", allowed_projects=["github:acme/web"])[0]),
    ]
    for actor in callers:
        expected = set(memories_visible_to(actor).values_list("pk", flat=True))
        in_hand = {memory.pk for memory in Memory.objects.all() if is_visible_to(actor, memory)}
        assert in_hand == expected, actor.label
