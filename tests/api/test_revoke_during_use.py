"""Revoking a token while its agent is writing through it: every request that starts after
the revocation returns is refused, every request is either wholly written or refused —
no 5xx, no memory without its event, no event without its memory — on whichever database
the suite targets."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test import Client

from accounts.tokens import token_revoke
from foundation.actors import Actor
from memories.models import Memory, MemoryEvent

pytestmark = pytest.mark.django_db(transaction=True)

WRITERS = 8
TIME_LIMIT = 60.0


def test_revoking_a_token_in_use_cuts_it_off_at_once_and_leaves_no_partial_write(
    owner, make_token, settings
):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 0
    token, raw = make_token("claude-code", scopes=["memories:read", "memories:write"])
    headers = {"Authorization": f"Bearer {raw}"}
    log: list[tuple[float, float, int, str | None]] = []  # (started, finished, status, id)
    lock = threading.Lock()
    revoked_at: list[float] = []
    stop = threading.Event()

    def write(number: int) -> None:
        client = Client()
        index, refused_after_revoke = 0, 0
        try:
            while not stop.is_set() and refused_after_revoke < 3:
                index += 1
                started = time.monotonic()
                response = client.post(
                    "/api/v1/memories",
                    {"content": f"Writer {number} notes step {index} of the migration", "kind": "fact"},
                    content_type="application/json", headers=headers,
                )  # fmt: skip
                finished = time.monotonic()
                memory_id = response.json().get("id") if response.status_code == 201 else None
                with lock:
                    log.append((started, finished, response.status_code, memory_id))
                if revoked_at and started > revoked_at[0]:
                    refused_after_revoke += 1
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(number,)) for number in range(WRITERS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + TIME_LIMIT
    while time.monotonic() < deadline and sum(status == 201 for *_, status, _ in log) < 20:
        time.sleep(0.01)
    token_revoke(actor=Actor.owner(owner), token_id=token.pk)
    revoked_at.append(time.monotonic())
    for thread in threads:
        thread.join(timeout=TIME_LIMIT)
    stop.set()
    connection.close()

    assert not any(thread.is_alive() for thread in threads)
    statuses = {status for _, _, status, _ in log}
    assert statuses <= {201, 401}, statuses
    after = [status for started, _, status, _ in log if started > revoked_at[0]]
    assert after and set(after) == {401}
    written = {memory_id for *_, status, memory_id in log if status == 201}
    assert len(written) >= 20
    mine = Memory.objects.filter(created_by_token=token)
    assert set(map(str, mine.values_list("pk", flat=True))) == written
    assert MemoryEvent.objects.filter(
        memory_id__in=mine.values("pk"), event_type="created"
    ).count() == len(written)
