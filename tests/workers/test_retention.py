"""Retention: the rule registry, windows (environment and owner), the bounded purge, the task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import PersonalAccessToken
from accounts.tokens import token_revoke
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from foundation.maintenance import retention
from foundation.maintenance.retention import RetentionRule, purge, retention_window_set, rule_get
from foundation.maintenance.runs import Deadline
from foundation.models import MaintenanceRun, RetentionOverride
from foundation.tasks import retention_cleanup
from memories.models import IdempotencyRecord, Memory
from tests.memories.helpers import remember
from tests.workers.helpers import idempotency_records

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_actor(owner):
    """The instance owner: the superuser account `serve` creates."""
    owner.is_superuser = True
    owner.save(update_fields=["is_superuser"])
    return Actor.owner(owner)


def forever() -> Deadline:
    return Deadline.after(3600)


def test_the_existing_tables_are_registered():
    names = {rule.name for rule in retention.rules()}

    assert {
        "idempotency_records",
        "revoked_or_expired_tokens",
        "maintenance_runs",
        "expired_handoffs",
    } <= names


def test_idempotency_records_older_than_24_hours_are_deleted_and_newer_ones_kept(owner):
    idempotency_records(owner, 5, age=timedelta(hours=25), prefix="old")
    idempotency_records(owner, 3, age=timedelta(hours=23), prefix="new")

    report = purge(rule_get("idempotency_records"), deadline=forever())

    assert report["removed"] == 5
    assert report["complete"] is True
    assert sorted(IdempotencyRecord.objects.values_list("key", flat=True)) == [
        "new0",
        "new1",
        "new2",
    ]


def test_the_purge_goes_in_batches_of_the_rules_size(owner, monkeypatch):
    idempotency_records(owner, 25, age=timedelta(days=2))
    small = RetentionRule(**{**rule_get("idempotency_records").__dict__, "batch_size": 10})

    report = purge(small, deadline=forever())

    assert (report["removed"], report["batches"]) == (25, 3)


def test_a_purge_past_its_deadline_stops_between_batches_and_says_it_is_incomplete(owner):
    idempotency_records(owner, 5, age=timedelta(days=2))

    report = purge(rule_get("idempotency_records"), deadline=Deadline.after(-1))

    assert report == {**report, "removed": 0, "complete": False}
    assert IdempotencyRecord.objects.count() == 5


def test_the_environment_sets_the_default_window(owner, settings):
    settings.CONTINUITY_RETENTION_IDEMPOTENCY_HOURS = 48
    idempotency_records(owner, 2, age=timedelta(hours=30))

    assert purge(rule_get("idempotency_records"), deadline=forever())["removed"] == 0


def test_the_owner_override_wins_over_the_environment_and_can_be_reset(owner, owner_actor):
    idempotency_records(owner, 2, age=timedelta(hours=3))

    shown = retention_window_set(actor=owner_actor, rule="idempotency_records", value=2)
    assert shown == {**shown, "window": 2, "override": 2, "default": 24, "unit": "hours"}
    assert purge(rule_get("idempotency_records"), deadline=forever())["removed"] == 2

    reset = retention_window_set(actor=owner_actor, rule="idempotency_records", value=None)
    assert reset["window"] == 24 and reset["override"] is None
    assert not RetentionOverride.objects.exists()


def test_an_agent_cannot_change_retention_windows(agent_actor):
    with pytest.raises(ServiceError) as info:
        retention_window_set(actor=agent_actor, rule="idempotency_records", value=1)

    assert info.value.code == ErrorCode.FORBIDDEN
    assert not RetentionOverride.objects.exists()


@pytest.mark.parametrize("value", [0, -1, 100_000, 1.5, "3", True])
def test_a_bad_window_is_refused_and_changes_nothing(owner_actor, value):
    with pytest.raises(ServiceError) as info:
        retention_window_set(actor=owner_actor, rule="revoked_or_expired_tokens", value=value)

    assert info.value.code == ErrorCode.VALIDATION_ERROR
    assert not RetentionOverride.objects.exists()


def test_a_user_who_is_not_the_instance_owner_cannot_change_retention_windows(other_owner):
    with pytest.raises(ServiceError) as info:
        retention_window_set(actor=Actor.owner(other_owner), rule="idempotency_records", value=1)

    assert info.value.code == ErrorCode.FORBIDDEN


def test_an_unknown_rule_is_not_found(owner_actor):
    with pytest.raises(ServiceError) as info:
        retention_window_set(actor=owner_actor, rule="nope", value=3)

    assert info.value.code == ErrorCode.NOT_FOUND


def test_tokens_revoked_or_expired_90_days_ago_go_and_their_memories_stay(owner_actor, make_token):
    long_revoked, _ = make_token("old-agent")
    token_revoke(actor=owner_actor, token_id=long_revoked.pk)
    PersonalAccessToken.objects.filter(pk=long_revoked.pk).update(
        revoked_at=timezone.now() - timedelta(days=91)
    )
    long_expired, _ = make_token("gone-agent")
    PersonalAccessToken.objects.filter(pk=long_expired.pk).update(
        expires_at=timezone.now() - timedelta(days=91)
    )
    recently_revoked, _ = make_token("recent-agent")
    token_revoke(actor=owner_actor, token_id=recently_revoked.pk)
    make_token("live-agent")

    receipt = remember(Actor.agent(PersonalAccessToken.objects.get(pk=long_revoked.pk)))

    report = purge(rule_get("revoked_or_expired_tokens"), deadline=forever())

    assert report["removed"] == 2
    assert set(PersonalAccessToken.objects.values_list("agent_name", flat=True)) == {
        "recent-agent", "live-agent",
    }  # fmt: skip
    memory = Memory.objects.get(pk=receipt.id)
    assert memory.created_by_token_id is None and memory.source_agent == "old-agent"


def test_an_updating_rule_retires_rows_once_and_is_idempotent(owner, owner_actor):
    # How capture's pending candidates will expire: an update, not a delete.
    MaintenanceRun.objects.create(
        task="x", status="failed", started_at=timezone.now() - timedelta(days=9)
    )
    rule = RetentionRule(
        name="test_runs_marked", model="foundation.MaintenanceRun", age_fields=("started_at",),
        setting="UNSET_SETTING", default=7, unit="days", description="test",
        extra=~retention.Q(status="skipped"), update={"status": "skipped"},
    )  # fmt: skip

    assert purge(rule, deadline=forever())["removed"] == 1
    assert purge(rule, deadline=forever())["removed"] == 0
    assert MaintenanceRun.objects.get().status == "skipped"


def test_a_capped_rule_keeps_only_the_newest_rows(owner, settings):
    settings.TEST_MAX_RECORDS = 4
    idempotency_records(owner, 10, age=timedelta(minutes=5))
    rule = RetentionRule(
        **{
            **rule_get("idempotency_records").__dict__,
            "max_rows_setting": "TEST_MAX_RECORDS",
            "batch_size": 3,
        }
    )

    report = purge(rule, deadline=forever())

    assert (report["over_cap"], report["removed"]) == (6, 6)
    assert IdempotencyRecord.objects.count() == 4


def test_the_cleanup_task_records_what_each_rule_removed(owner):
    idempotency_records(owner, 7, age=timedelta(days=3))

    outcome = retention_cleanup.delay().get()

    run = MaintenanceRun.objects.get(pk=outcome["run"])
    assert run.task == "continuity.retention_cleanup" and run.status == "succeeded"
    assert run.result["removed"] == 7
    assert run.result["rules"]["idempotency_records"]["removed"] == 7
    assert run.result["rules"]["revoked_or_expired_tokens"]["removed"] == 0


def test_a_second_cleanup_within_half_an_interval_is_skipped_and_removes_nothing(owner):
    retention_cleanup.delay()
    idempotency_records(owner, 2, age=timedelta(days=3))

    outcome = retention_cleanup.delay().get()

    assert outcome["status"] == "skipped"
    assert IdempotencyRecord.objects.count() == 2
    assert retention_cleanup.delay(force=True).get()["result"]["removed"] == 2


def test_a_failing_rule_fails_the_run_but_the_other_rules_still_purge(owner, monkeypatch):
    idempotency_records(owner, 3, age=timedelta(days=3))
    broken = RetentionRule(
        name="broken", model="foundation.MaintenanceRun", age_fields=("no_such_field",),
        setting="UNSET", default=1, unit="days", description="broken",
    )  # fmt: skip
    monkeypatch.setitem(retention.RULES, "broken", broken)

    with pytest.raises(retention.RetentionFailed):
        retention_cleanup.delay(force=True).get()

    run = MaintenanceRun.objects.get(status="failed")
    assert "broken" in run.error
    assert run.result["rules"]["idempotency_records"]["removed"] == 3
    assert IdempotencyRecord.objects.count() == 0


def test_handoff_capsules_go_30_days_after_they_expired(owner):
    from handoff.models import HandoffCapsule

    def capsule(task_id, expired_days_ago):
        return HandoffCapsule.objects.create(
            owner=owner, task_id=task_id, summary="state of the task",
            expires_at=timezone.now() - timedelta(days=expired_days_ago),
        )  # fmt: skip

    capsule("long-gone", 31)
    capsule("recently-expired", 5)
    capsule("live", -3)

    report = purge(rule_get("expired_handoffs"), deadline=forever())

    assert report["removed"] == 1
    assert sorted(HandoffCapsule.objects.values_list("task_id", flat=True)) == [
        "live",
        "recently-expired",
    ]
