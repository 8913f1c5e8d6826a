"""Access counts: recall's reads are batched off the request path into one task."""

import time

import pytest
from django.db import connection

from memories.access import AccessLog
from memories.models import Memory
from memories.retrieval import recall
from memories.services import memory_remember
from memories.tasks import record_access

pytestmark = pytest.mark.django_db


def remember(actor, content):
    return memory_remember(actor=actor, content=content, kind="fact").id


def test_reads_pile_up_and_go_as_one_batch_of_counts(owner_actor):
    first, second = remember(owner_actor, "first memory"), remember(owner_actor, "second memory")
    sent = []
    log = AccessLog(sent.append, inline=False, every=3600)
    log.add([first, second])
    log.add([first])
    assert sent == []  # nothing on the caller's path

    log.flush()
    assert sent == [{str(first): 2, str(second): 1}]
    log.flush()
    assert len(sent) == 1  # nothing pending, nothing sent

    record_access(sent[0])
    counts = Memory.objects.filter(pk__in=[first, second]).values_list("pk", "access_count")
    assert {str(pk): count for pk, count in counts} == {str(first): 2, str(second): 1}


def test_the_background_thread_sends_on_its_own(owner_actor):
    memory_id = remember(owner_actor, "a memory")
    sent = []
    log = AccessLog(sent.append, inline=False, every=0.01)
    log.add([memory_id])
    deadline = time.monotonic() + 10
    while not sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sent == [{str(memory_id): 1}]


def test_a_failing_send_is_logged_and_does_not_reach_the_reader(owner_actor, caplog):
    def broker_away(counts):
        raise ConnectionError("broker unreachable")

    log = AccessLog(broker_away, inline=True)
    log.add([remember(owner_actor, "a memory")])
    assert "could not queue access counts" in caplog.text


def test_the_task_also_takes_a_list_of_ids(owner_actor):
    memory_id = remember(owner_actor, "a memory")
    assert record_access([str(memory_id), str(memory_id)]) == 1
    assert Memory.objects.get(pk=memory_id).access_count == 2


@pytest.mark.sqlite
def test_successor_lookup_keeps_its_index_after_analyze(owner_actor):
    """Once SQLite has statistics (ANALYZE), a full index on supersedes_id read as one
    value shared by every row; the partial index keeps the lookup on an index."""
    for number in range(50):
        remember(owner_actor, f"memory number {number}")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        query = Memory.objects.filter(
            supersedes_id__in=[m.pk for m in Memory.objects.all()[:2]]
        ).order_by()
        sql, params = query.query.sql_with_params()
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        plan = " ".join(str(row[-1]) for row in cursor.fetchall())
    assert "mem_supersedes_idx" in plan, plan


def test_recall_reads_are_counted(agent_actor, owner_actor):
    memory_id = remember(owner_actor, "The deploy script lives in ops/deploy.sh")
    recall(actor=agent_actor, query="deploy script")
    recall(actor=agent_actor, query="where is the deploy script")
    assert Memory.objects.get(pk=memory_id).access_count == 2
