"""Concurrent writers on one key: compare-and-set has exactly one winner per version, and
merges lose no update. Runs on whichever database the suite targets (SQLite's IMMEDIATE
transactions, PostgreSQL's row and advisory locks)."""

import pytest

from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory, MemoryEvent
from tests.memories.helpers import remember
from tests.threads import run_in_threads

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 20


def test_twenty_compare_and_set_writers_give_one_winner_per_version(agent_actor):
    remember(agent_actor, content="counter at 0", kind="task_state", key="counter")

    def cas_until_won(index):
        attempts = 0
        while True:
            attempts += 1
            version = Memory.objects.get(key="counter", status="active").version
            try:
                receipt = remember(
                    agent_actor,
                    content=f"counter written by {index}",
                    kind="task_state",
                    key="counter",
                    expected_version=version,
                )
                return receipt.version, attempts
            except ServiceError as error:
                if error.code != ErrorCode.VERSION_CONFLICT:
                    raise

    outcomes = run_in_threads(cas_until_won)
    errors = [outcome for outcome in outcomes if isinstance(outcome, Exception)]
    assert errors == []
    won_versions = sorted(version for version, _ in outcomes)
    # Every writer won exactly once, each version 2..21 has exactly one winner.
    assert won_versions == list(range(2, THREADS + 2))
    assert sum(attempts for _, attempts in outcomes) > THREADS  # there really were conflicts
    chain = Memory.objects.filter(key="counter")
    assert chain.filter(status="active").count() == 1
    assert chain.get(status="active").version == THREADS + 1
    assert chain.filter(status="superseded").count() == THREADS
    contents = set(chain.exclude(version=1).values_list("content", flat=True))
    assert contents == {f"counter written by {i}" for i in range(THREADS)}


def test_twenty_concurrent_merges_lose_no_update(agent_actor):
    remember(
        agent_actor,
        content="shared settings",
        kind="preference",
        key="settings",
        value={"base": True},
    )

    def merge(index):
        return remember(
            agent_actor,
            content="shared settings",
            kind="preference",
            key="settings",
            write_mode="merge",
            value={f"writer_{index}": index},
        )

    outcomes = run_in_threads(merge)
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    active = Memory.objects.get(key="settings", status="active")
    assert active.value == {"base": True, **{f"writer_{i}": i for i in range(THREADS)}}
    assert active.version == THREADS + 1
    assert sorted(o.version for o in outcomes) == list(range(2, THREADS + 2))


def test_concurrent_identical_writes_create_one_memory(agent_actor):
    outcomes = run_in_threads(lambda index: remember(agent_actor, content="Use ruff for linting"))
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    assert len({o.id for o in outcomes}) == 1
    assert sorted(o.evolution["action"] for o in outcomes).count("created") == 1
    assert Memory.objects.count() == 1 and MemoryEvent.objects.count() == 1


def test_concurrent_replays_of_one_idempotency_key_write_once(agent_actor):
    outcomes = run_in_threads(
        lambda index: remember(agent_actor, content="Prefer small PRs", idempotency_key="once")
    )
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    assert all(o == outcomes[0] for o in outcomes), {repr(o) for o in outcomes}
    assert Memory.objects.count() == 1


def test_concurrent_writers_on_different_keys_all_land_once(agent_actor):
    def write_keys(index):
        return [
            remember(agent_actor, content=f"Service {index} listens on port {8000 + step}", kind="fact",
                     key=f"service-{index}-port-{step}")
            for step in range(5)
        ]  # fmt: skip

    outcomes = run_in_threads(write_keys)
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    receipts = [receipt for batch in outcomes for receipt in batch]
    assert len({receipt.id for receipt in receipts}) == THREADS * 5
    assert all(receipt.evolution["action"] == "created" for receipt in receipts)
    assert Memory.objects.filter(status="active").count() == THREADS * 5
    assert MemoryEvent.objects.count() == THREADS * 5
