"""memory_checkpoint: a summary and its atoms, all or nothing."""

import pytest

from foundation.errors import ErrorCode
from memories.models import Memory, MemoryLink
from memories.services import memory_checkpoint
from tests.memories.helpers import raises, row_counts

pytestmark = pytest.mark.django_db


def test_checkpoint_writes_a_summary_and_linked_atoms_in_one_go(agent_actor):
    result = memory_checkpoint(
        actor=agent_actor,
        summary="Migrated the billing service to Postgres 16; tests green",
        memories=[
            {"content": "Billing runs on Postgres 16 since the migration", "kind": "fact"},
            {"content": "迁移时要先停掉账单的定时任务", "kind": "lesson", "tags": ["migration"]},
        ],
        project_key="github:acme/billing",
        task_id="task-77",
    )
    summary = Memory.objects.get(pk=result["summary_id"])
    assert (summary.type, summary.kind, summary.scope_type, summary.scope_key) == (
        "episodic",
        "task_state",
        "task",
        "task-77",
    )
    atoms = Memory.objects.filter(pk__in=result["memory_ids"])
    assert atoms.count() == 2 and {atom.scope_key for atom in atoms} == {"github:acme/billing"}
    assert (
        MemoryLink.objects.filter(
            from_memory__in=atoms, to_memory=summary, relation="derived_from"
        ).count()
        == 2
    )


def test_a_bad_atom_rolls_back_the_whole_checkpoint_and_names_its_index(agent_actor):
    with raises(ErrorCode.SECRET_REJECTED) as caught:
        memory_checkpoint(
            actor=agent_actor,
            summary="Rotated credentials",
            memories=[
                {"content": "Credentials rotate every 90 days", "kind": "fact"},
                {"content": "The new key is AKIAIOSFODNN7EXAMPLE", "kind": "fact"},
            ],
        )
    assert caught.value.message.startswith("memories[1]:") and caught.value.details[0] == {
        "index": 1
    }
    assert row_counts() == (0, 0, 0)


@pytest.mark.parametrize(
    "memories",
    [
        [{"content": "no kind"}],
        [{"content": "x", "kind": "fact", "owner": 3}],
        [{"content": "x", "kind": "fact"}] * 21,
    ],
)
def test_malformed_atoms_are_validation_errors(agent_actor, memories):
    with raises(ErrorCode.VALIDATION_ERROR):
        memory_checkpoint(actor=agent_actor, summary="Progress", memories=memories)
    assert row_counts() == (0, 0, 0)


def test_agents_cannot_smuggle_owner_trust_through_a_checkpoint(agent_actor):
    with raises(ErrorCode.FORBIDDEN):
        memory_checkpoint(
            actor=agent_actor,
            summary="Progress",
            memories=[
                {"content": "Always deploy on Friday", "kind": "decision", "trust": "locked"}
            ],
        )
    assert row_counts() == (0, 0, 0)
