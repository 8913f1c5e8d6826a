"""The Settings page: retention windows (set and reset by the instance owner through the
retention service; read-only for everyone else) and what recent background runs did."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.maintenance.history import recent_runs, run_counts
from foundation.maintenance.runs import Deadline
from foundation.models import MaintenanceRun, RetentionOverride
from foundation.tasks import retention_cleanup
from memories.compaction import compaction

from .conftest import DashboardClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def instance_owner(django_user_model):
    return django_user_model.objects.create_superuser(
        username="root", password="correct horse battery"
    )


@pytest.fixture
def admin(instance_owner) -> DashboardClient:
    return DashboardClient(instance_owner)


def test_the_page_lists_every_retention_rule_with_its_default_and_window(admin):
    html = admin.get("/settings/").content.decode()
    for rule in (
        "idempotency_records",
        "revoked_or_expired_tokens",
        "maintenance_runs",
        "expired_handoffs",
    ):
        assert f'id="rule-{rule}"' in html and f'id="w-{rule}"' in html
    assert 'aria-current="page">Settings' in html


def test_the_instance_owner_sets_a_window_over_htmx(admin):
    response = admin.post("/settings/retention/expired_handoffs/", {"value": "12"}, htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and "Retention window saved." in html
    assert 'id="w-expired_handoffs" name="value" inputmode="numeric" size="6" value="12"' in html
    assert RetentionOverride.objects.get(rule="expired_handoffs").value == 12


def test_reset_goes_back_to_the_environment_default_without_javascript(admin, settings):
    settings.CONTINUITY_RETENTION_HANDOFFS_DAYS = 30
    admin.post("/settings/retention/expired_handoffs/", {"value": "12"})
    response = admin.post("/settings/retention/expired_handoffs/", {"reset": "1"})
    assert response.status_code == 302 and response["Location"] == "/settings/"
    assert not RetentionOverride.objects.exists()


@pytest.mark.parametrize("value, message", [
    ("0", "between 1 and"), ("99999", "between 1 and"), ("abc", "whole number"), ("1.5", "whole number"),
    ("三十", "whole number"), ("", "whole number"),
])  # fmt: skip
def test_a_bad_window_shows_the_error_by_its_field_and_changes_nothing(admin, value, message):
    html = admin.post(
        "/settings/retention/expired_handoffs/", {"value": value}, htmx=True
    ).content.decode()
    assert (
        message in html and 'id="w-expired_handoffs-err"' in html and 'aria-invalid="true"' in html
    )
    response = admin.post("/settings/retention/expired_handoffs/", {"value": value})
    assert response.status_code == 400 and message in response.content.decode()
    assert not RetentionOverride.objects.exists()


def test_an_unknown_rule_is_404(admin):
    assert admin.post("/settings/retention/no_such_rule/", {"value": "3"}).status_code == 404


def test_other_users_see_the_windows_read_only_and_cannot_change_them(browser):
    html = browser.get("/settings/").content.decode()
    assert (
        "Only the instance owner can change these windows." in html and 'name="value"' not in html
    )
    response = browser.post("/settings/retention/expired_handoffs/", {"value": "3"})
    assert response.status_code == 403 and "instance owner" in response.content.decode()
    assert not RetentionOverride.objects.exists()


def test_changing_a_window_needs_the_csrf_token(instance_owner):
    client = DashboardClient(instance_owner)
    response = client.post(
        "/settings/retention/expired_handoffs/", {"value": "3"}, headers={"X-CSRFToken": "x"}
    )
    assert response.status_code == 403 and not RetentionOverride.objects.exists()


def test_each_run_shows_what_it_removed_or_produced(admin, agent_actor):
    from handoff.models import HandoffCapsule
    from handoff.services import handoff_create

    capsule = handoff_create(actor=agent_actor, task_id="任务-1", summary="old")
    HandoffCapsule.objects.filter(pk=capsule.pk).update(
        expires_at=timezone.now() - timedelta(days=400)
    )
    retention_cleanup.apply(kwargs={"force": True}).get()
    compaction_run = MaintenanceRun.objects.create(
        task="memories.compaction", status="succeeded", started_at=timezone.now(), finished_at=timezone.now(),
        result=compaction(deadline=Deadline.after(60)),
    )  # fmt: skip
    html = admin.get("/settings/").content.decode()
    run = MaintenanceRun.objects.get(task="continuity.retention_cleanup")
    assert f'id="run-{run.pk}"' in html and f'id="run-{compaction_run.pk}"' in html
    assert "<code>expired_handoffs · removed</code>: 1" in html
    assert "<code>exact_duplicates · merged</code>: 0" in html
    assert not HandoffCapsule.objects.exists()


def test_run_counts_skip_the_parameters_a_run_echoes_back():
    result = {
        "rules": {"tokens": {"removed": 2, "window": 90, "batches": 1, "complete": True}},
        "removed": 2,
    }
    assert run_counts(result) == [("tokens · removed", 2), ("removed", 2)]


def test_skipped_runs_are_left_out_of_the_list():
    now = timezone.now()
    MaintenanceRun.objects.create(
        task="continuity.retention_cleanup", status="skipped", started_at=now
    )
    assert recent_runs() == []
    assert len(recent_runs(include_skipped=True)) == 1


def test_the_page_reads_in_chinese(admin):
    admin.post("/i18n/setlang/", {"language": "zh-hans", "next": "/settings/"})
    html = admin.get("/settings/").content.decode()
    assert (
        "数据保留" in html
        and "最近的后台运行" in html
        and "恢复默认" not in html
        and "保存" in html
    )
