"""Atomic counters: the sign-in throttle and the per-token rate limit hold under concurrency,
on the profile the suite runs in (lite: SQLite rows; team: Redis)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.contrib.auth import get_user_model

from accounts.counters import counter_clear, counter_hit, counter_peek, counter_refund
from tests.accounts.helpers import end_window

PARALLEL = 40


@pytest.mark.django_db
def test_a_window_counts_each_hit_and_opens_with_the_first():
    counter_clear("probe")
    first = counter_hit("probe", window_seconds=60)
    second = counter_hit("probe", window_seconds=60)
    assert (first.count, second.count) == (1, 2)
    assert 0 < second.seconds_left <= 60
    assert counter_peek("probe").count == 2


@pytest.mark.django_db
def test_a_hit_after_the_window_ended_starts_a_new_one():
    counter_clear("probe")
    counter_hit("probe", window_seconds=60)
    counter_hit("probe", window_seconds=60)
    end_window("probe")
    assert counter_peek("probe").count == 0
    assert counter_hit("probe", window_seconds=60).count == 1


@pytest.mark.django_db
def test_a_refund_takes_one_back_and_never_goes_below_zero():
    counter_clear("probe")
    counter_hit("probe", window_seconds=60)
    counter_refund("probe")
    counter_refund("probe")
    assert counter_peek("probe").count == 0
    assert counter_hit("probe", window_seconds=60).count == 1


@pytest.mark.django_db(transaction=True)
def test_parallel_hits_each_take_a_distinct_count():
    counter_clear("parallel")
    with ThreadPoolExecutor(PARALLEL) as pool:
        counts = list(
            pool.map(lambda _: counter_hit("parallel", window_seconds=60).count, range(200))
        )
    assert sorted(counts) == list(range(1, 201))


@pytest.fixture
def slow_passwords(settings):
    # The real (slow) hasher: the race between checking a password and counting the failure
    # is then as wide as it is in production.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]


@pytest.mark.django_db(transaction=True)
def test_forty_parallel_wrong_passwords_for_one_account_check_only_the_allowed_few(
    live_server, settings, slow_passwords
):
    settings.CONTINUITY_LOGIN_MAX_FAILURES = 5
    settings.CONTINUITY_LOGIN_MAX_FAILURES_PER_IP = 1000
    get_user_model().objects.create_user("alice", password="the right one, long enough")
    checked = []

    def guess(index: int) -> int:
        with httpx.Client(base_url=live_server.url, timeout=300) as client:
            client.get("/signin/")
            response = client.post(
                "/signin/",
                data={
                    "username": "alice",
                    "password": f"wrong guess {index}",
                    "csrfmiddlewaretoken": client.cookies["csrftoken"],
                },
                headers={"Referer": f"{live_server.url}/signin/"},
            )
            return response.status_code

    from django.contrib.auth.backends import ModelBackend

    original = ModelBackend.authenticate

    def counting(self, request, username=None, password=None, **kwargs):
        checked.append(password)
        return original(self, request, username=username, password=password, **kwargs)

    ModelBackend.authenticate = counting
    try:
        with ThreadPoolExecutor(PARALLEL) as pool:
            statuses = list(pool.map(guess, range(PARALLEL)))
    finally:
        ModelBackend.authenticate = original

    assert len(checked) == 5, f"{len(checked)} passwords were checked"
    # The others were refused unchecked: 429 when the page saw the lock first, the form again
    # when the lock was taken between that look and the attempt's own count.
    assert all(status in (200, 429) for status in statuses), statuses
    assert statuses.count(429) >= PARALLEL // 2


@pytest.mark.django_db(transaction=True)
def test_forty_parallel_clients_get_exactly_the_rate_limit_through(
    live_server, settings, make_token
):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 50
    _, raw = make_token("claude-code")

    def calls(_: int) -> list[int]:
        headers = {"Authorization": f"Bearer {raw}"}
        with httpx.Client(base_url=live_server.url, headers=headers, timeout=120) as client:
            return [client.get("/api/v1/capabilities").status_code for _ in range(4)]

    with ThreadPoolExecutor(PARALLEL) as pool:
        statuses = [status for batch in pool.map(calls, range(PARALLEL)) for status in batch]

    assert len(statuses) == 4 * PARALLEL
    assert statuses.count(200) == 50, f"{statuses.count(200)} of {len(statuses)} got through"
    assert statuses.count(429) == len(statuses) - 50
