"""Concurrent decisions on one candidate: exactly one wins, every loser gets CONFLICT, and
exactly one memory exists. Runs on whichever database the suite targets."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from capture.models import Candidate
from capture.services.review import candidate_approve, candidate_reject
from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory
from tests.threads import run_in_threads

from .inbox_helpers import pending, propose

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 8


def test_concurrent_approves_and_rejects_of_one_candidate_have_exactly_one_winner(
    owner_actor, owner
):
    propose(owner, "我们决定用 Redis 做缓存。")
    (candidate,) = pending(owner)

    def decide(index):
        if index % 2:
            return candidate_reject(actor=owner_actor, candidate_id=candidate.pk).status
        return candidate_approve(actor=owner_actor, candidate_id=candidate.pk).status

    outcomes = run_in_threads(decide, THREADS)
    winners = [outcome for outcome in outcomes if isinstance(outcome, str)]
    losers = [outcome for outcome in outcomes if isinstance(outcome, Exception)]
    assert len(winners) == 1, outcomes
    assert all(
        isinstance(error, ServiceError) and error.code == ErrorCode.CONFLICT for error in losers
    ), losers
    assert Candidate.objects.get(pk=candidate.pk).status == winners[0]
    assert Memory.objects.count() == (1 if winners[0] == "approved" else 0)


@pytest.mark.postgres
def test_a_reject_waits_for_an_open_approval_and_then_loses_with_a_conflict(owner_actor, owner):
    """PostgreSQL: the conditional update blocks on the row lock the approval holds, and
    re-checks the status once it commits."""
    propose(owner, "I prefer tabs over spaces.")
    (candidate,) = pending(owner)
    approved, finished = threading.Event(), threading.Event()
    outcome: dict = {}

    def approve_and_hold():
        try:
            with transaction.atomic():
                candidate_approve(actor=owner_actor, candidate_id=candidate.pk)
                approved.set()
                time.sleep(1.0)  # hold the row lock while the reject arrives
        finally:
            connection.close()

    def reject():
        approved.wait(10)
        try:
            candidate_reject(actor=owner_actor, candidate_id=candidate.pk)
            outcome["result"] = "rejected"
        except ServiceError as error:
            outcome["result"] = error.code
        finally:
            finished.set()
            connection.close()

    holder, rejecter = threading.Thread(target=approve_and_hold), threading.Thread(target=reject)
    holder.start()
    rejecter.start()
    assert approved.wait(10)
    assert not finished.wait(0.5)  # blocked behind the approval's lock
    holder.join(30)
    rejecter.join(30)
    assert outcome["result"] == ErrorCode.CONFLICT
    assert Candidate.objects.get(pk=candidate.pk).status == "approved"
