"""memories.services.bulk: one service call per item, every outcome reported in order,
bounded, owner-only."""

from __future__ import annotations

import uuid

import pytest

from foundation.errors import ErrorCode, ServiceError
from memories.contract import MAX_BULK_ITEMS
from memories.models import Memory
from memories.services import memory_remember
from memories.services.bulk import memories_bulk, proposals_bulk

pytestmark = pytest.mark.django_db


def write(actor, content):
    return memory_remember(actor=actor, content=content, kind="fact").id


def test_each_item_is_reported_in_order_and_a_repeated_id_runs_once(owner_actor):
    first, second = write(owner_actor, "Deploys go out on Tuesdays."), uuid.uuid4()
    result = memories_bulk(
        actor=owner_actor, action="lock", ids=[str(first), str(second), str(first), "x"]
    )
    assert [(item.id, item.outcome) for item in result.items] == [
        (str(first), "done"), (str(second), "not_found"), ("x", "not_found"),
    ]  # fmt: skip
    assert (result.done, result.refused, result.not_found) == (1, 0, 2)
    assert Memory.objects.get(pk=first).trust == "locked"


def test_a_refusal_keeps_the_services_code_and_message_and_undoes_nothing_else(owner_actor):
    kept = write(owner_actor, "The staging host is stg-1.")
    gone = write(owner_actor, "The staging host is stg-2.")
    Memory.objects.filter(pk=gone).update(status="superseded")
    result = memories_bulk(actor=owner_actor, action="archive", ids=[str(gone), str(kept)])
    refused, done = result.items
    assert refused.outcome == "refused" and refused.code == ErrorCode.VALIDATION_ERROR
    assert "cannot be archived" in refused.message
    assert done.outcome == "done" and Memory.objects.get(pk=kept).status == "archived"


def test_agents_cannot_act_in_bulk(agent_actor):
    memory = write(agent_actor, "The api service uses Redis 7.")
    with pytest.raises(ServiceError) as refused:
        memories_bulk(actor=agent_actor, action="archive", ids=[str(memory)])
    assert refused.value.code == ErrorCode.FORBIDDEN
    with pytest.raises(ServiceError):
        proposals_bulk(actor=agent_actor, action="dismiss", ids=["1"])
    assert Memory.objects.get(pk=memory).status == "active"


@pytest.mark.parametrize(
    ("action", "ids", "field"),
    [
        ("confirm", [], "ids"),
        ("confirm", "not-a-list", "ids"),
        ("confirm", [str(n) for n in range(MAX_BULK_ITEMS + 1)], "ids"),
        ("unlock", ["x"], "action"),
    ],
)
def test_bad_input_is_refused_before_anything_runs(owner_actor, action, ids, field):
    with pytest.raises(ServiceError) as refused:
        memories_bulk(actor=owner_actor, action=action, ids=ids)
    assert refused.value.code == ErrorCode.VALIDATION_ERROR
    assert refused.value.details[0]["field"] == field
