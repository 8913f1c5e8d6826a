"""Owner authority over memories: confirm, lock, correct, archive, restore, forget, delete."""

import pytest
from django.apps import apps
from django.db import connection

from foundation.errors import ErrorCode
from memories.models import Memory, MemoryEvent, MemoryLink, Relation
from memories.services import (
    memory_archive,
    memory_confirm,
    memory_correct,
    memory_delete,
    memory_forget,
    memory_lock,
    memory_restore,
    memory_unlock,
)
from tests.memories.helpers import raises, remember, row_counts

pytestmark = pytest.mark.django_db


def events_of(memory_id):
    return list(
        MemoryEvent.objects.filter(memory_id=memory_id)
        .order_by("id")
        .values_list("event_type", flat=True)
    )


@pytest.mark.parametrize(
    "operation", [memory_confirm, memory_lock, memory_unlock, memory_restore, memory_delete]
)
def test_agents_can_never_use_owner_operations(agent_actor, operation):
    receipt = remember(agent_actor)
    counts = row_counts()
    with raises(ErrorCode.FORBIDDEN):
        operation(actor=agent_actor, memory_id=receipt.id)
    assert row_counts() == counts


def test_agents_cannot_correct(agent_actor):
    receipt = remember(agent_actor)
    with raises(ErrorCode.FORBIDDEN):
        memory_correct(actor=agent_actor, memory_id=receipt.id, content="Use pip")


def test_confirm_raises_trust_records_an_event_and_is_idempotent(owner_actor, agent_actor):
    receipt = remember(agent_actor)
    memory = memory_confirm(actor=owner_actor, memory_id=receipt.id)
    assert memory.trust == "confirmed" and memory.verified_at is not None
    memory_confirm(actor=owner_actor, memory_id=receipt.id)
    assert events_of(receipt.id) == ["created", "confirmed"]


def test_confirming_a_locked_memory_leaves_it_locked(owner_actor):
    receipt = remember(owner_actor, trust="locked")
    assert memory_confirm(actor=owner_actor, memory_id=receipt.id).trust == "locked"


def test_lock_then_unlock(owner_actor, agent_actor):
    receipt = remember(agent_actor)
    assert memory_lock(actor=owner_actor, memory_id=receipt.id).trust == "locked"
    assert memory_unlock(actor=owner_actor, memory_id=receipt.id).trust == "confirmed"
    memory_unlock(actor=owner_actor, memory_id=receipt.id)
    assert events_of(receipt.id) == ["created", "locked", "unlocked"]


def test_confirming_a_disputed_memory_makes_it_the_next_version_of_its_key(
    owner_actor, agent_actor
):
    owned = remember(owner_actor, content="Deploy on Tuesdays", kind="decision", key="deploy-day")
    disputed = remember(agent_actor, content="Deploy on Fridays", kind="decision", key="deploy-day")
    memory = memory_confirm(actor=owner_actor, memory_id=disputed.id)
    assert (memory.status, memory.trust, memory.version, str(memory.supersedes_id)) == (
        "active",
        "confirmed",
        2,
        owned.id,
    )
    assert Memory.objects.get(pk=owned.id).status == "superseded"
    assert Memory.objects.get(key="deploy-day", status="active").pk == memory.pk


def test_correct_creates_a_new_confirmed_version_that_supersedes_the_old(owner_actor, agent_actor):
    receipt = remember(
        agent_actor, content="The staging DB is Postgres 14", kind="fact", key="staging-db"
    )
    corrected = memory_correct(
        actor=owner_actor, memory_id=receipt.id, content="The staging DB is Postgres 16"
    )
    old = Memory.objects.get(pk=receipt.id)
    assert (corrected.version, corrected.trust, corrected.origin, corrected.key) == (
        2,
        "confirmed",
        "user",
        "staging-db",
    )
    assert old.status == "superseded" and corrected.supersedes_id == old.pk
    assert MemoryLink.objects.filter(
        from_memory=corrected, to_memory=old, relation=Relation.SUPERSEDES
    ).exists()
    assert events_of(corrected.pk) == ["corrected"] and events_of(old.pk)[-1] == "superseded"


def test_correcting_a_locked_memory_keeps_it_locked(owner_actor):
    receipt = remember(owner_actor, trust="locked")
    assert (
        memory_correct(
            actor=owner_actor, memory_id=receipt.id, content="Use uv for everything"
        ).trust
        == "locked"
    )


def test_correct_rejects_secrets_and_oversize_and_changes_nothing(owner_actor):
    receipt = remember(owner_actor)
    counts = row_counts()
    with raises(ErrorCode.SECRET_REJECTED):
        memory_correct(
            actor=owner_actor, memory_id=receipt.id, content="aws key AKIAIOSFODNN7EXAMPLE"
        )
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_correct(actor=owner_actor, memory_id=receipt.id, content="x" * 4001)
    assert row_counts() == counts
    assert Memory.objects.get(pk=receipt.id).status == "active"


def test_agent_archives_its_own_memory_but_not_an_owner_confirmed_one(owner_actor, agent_actor):
    mine = remember(agent_actor, content="Temporary: the build is red")
    assert memory_archive(actor=agent_actor, memory_id=mine.id, reason="fixed").status == "archived"
    owned = remember(owner_actor, content="Never push to main")
    with raises(ErrorCode.FORBIDDEN):
        memory_forget(actor=agent_actor, memory_id=owned.id)
    assert Memory.objects.get(pk=owned.id).status == "active"


def test_forget_with_a_successor_supersedes(agent_actor):
    old = remember(agent_actor, content="The API runs on port 8000", kind="fact")
    new = remember(agent_actor, content="The API runs on port 9000", kind="fact")
    forgotten = memory_forget(
        actor=agent_actor, memory_id=old.id, superseded_by=new.id, reason="moved"
    )
    assert forgotten.status == "superseded"
    assert str(Memory.objects.get(pk=new.id).supersedes_id) == old.id
    assert MemoryLink.objects.filter(
        from_memory_id=new.id, to_memory_id=old.id, relation="supersedes"
    ).exists()


def test_forget_never_deletes(agent_actor):
    receipt = remember(agent_actor)
    memory_forget(actor=agent_actor, memory_id=receipt.id)
    assert Memory.objects.filter(pk=receipt.id, status="archived").exists()


def test_restore_brings_an_archived_memory_back(owner_actor, agent_actor):
    receipt = remember(agent_actor)
    memory_archive(actor=agent_actor, memory_id=receipt.id)
    assert memory_restore(actor=owner_actor, memory_id=receipt.id).status == "active"
    assert events_of(receipt.id) == ["created", "archived", "restored"]


def test_restore_refuses_when_a_newer_version_holds_the_key(owner_actor):
    first = remember(owner_actor, content="Port 8000", kind="fact", key="port")
    remember(owner_actor, content="Port 9000", kind="fact", key="port")
    with raises(ErrorCode.CONFLICT):
        memory_restore(actor=owner_actor, memory_id=first.id)
    assert Memory.objects.get(pk=first.id).status == "superseded"


def test_memories_of_another_owner_are_not_found(owner_actor, other_owner):
    from foundation.actors import Actor

    receipt = remember(owner_actor)
    with raises(ErrorCode.NOT_FOUND):
        memory_confirm(actor=Actor.owner(other_owner), memory_id=receipt.id)
    with raises(ErrorCode.NOT_FOUND):
        memory_delete(actor=Actor.owner(other_owner), memory_id=receipt.id)


def test_a_malformed_id_is_a_validation_error(owner_actor):
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_confirm(actor=owner_actor, memory_id="not-a-uuid")


def _every_stored_value() -> str:
    """Every row of every table in the database, as text."""
    chunks = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            chunks.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(chunks)


def test_owner_delete_leaves_no_trace_of_the_content_in_any_table(owner_actor, agent_actor):
    marker = "zebraquux"
    first = remember(
        agent_actor,
        content=f"My locker code hint is {marker} v1",
        kind="fact",
        key="locker",
        tags=[marker],
        retrieval_hints=[f"where is {marker}"],
    )
    remember(
        agent_actor,
        content=f"My locker code hint is {marker} v2",
        kind="fact",
        key="locker",
        idempotency_key="write-2",
    )
    current = Memory.objects.get(key="locker", status="active")
    memory_correct(
        actor=owner_actor, memory_id=current.pk, content=f"My locker hint is {marker} v3"
    )
    latest = Memory.objects.get(key="locker", status="active")
    other = remember(agent_actor, content="Unrelated memory that stays")
    from memories.services import memory_link

    memory_link(actor=owner_actor, from_id=other.id, to_id=latest.pk, relation="related_to")
    assert marker in _every_stored_value()

    memory_delete(actor=owner_actor, memory_id=latest.pk)

    stored = _every_stored_value()
    assert marker not in stored and marker[:5] not in stored
    assert not Memory.objects.filter(key="locker").exists()
    assert Memory.objects.filter(pk=other.id).exists()
    tombstones = MemoryEvent.objects.filter(event_type="deleted")
    assert {str(event.memory_id) for event in tombstones} >= {first.id, str(latest.pk)}
    assert all(event.result == {"deleted": True} for event in tombstones)


def test_deleting_an_old_version_keeps_the_newer_ones(owner_actor):
    first = remember(owner_actor, content="Port 8000", kind="fact", key="port")
    second = remember(owner_actor, content="Port 9000", kind="fact", key="port")
    memory_delete(actor=owner_actor, memory_id=first.id)
    survivor = Memory.objects.get(pk=second.id)
    assert survivor.status == "active" and survivor.supersedes_id is None


def test_every_table_is_reachable_by_the_scan():
    # The no-trace test scans every table; make sure our models' tables are among them.
    tables = set(connection.introspection.table_names())
    for model in apps.get_app_config("memories").get_models():
        assert model._meta.db_table in tables
