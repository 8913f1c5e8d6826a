"""What the services say reaches a Chinese page in Chinese: refusals, retention rules and
their errors, job descriptions, Activity reasons, bulk results. The agent API keeps its
English envelope whatever language the request asks for."""

from __future__ import annotations

import pytest
from django.utils import timezone

from foundation.actors import Actor
from foundation.models import MaintenanceRun
from foundation.tasks import RETENTION_JOB
from memories.models import Memory

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db


def chinese(client: DashboardClient) -> DashboardClient:
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    return client


@pytest.fixture
def zh(browser) -> DashboardClient:
    return chinese(browser)


@pytest.fixture
def zh_admin(django_user_model) -> DashboardClient:
    root = django_user_model.objects.create_superuser(username="root", password="a long secret")
    return chinese(DashboardClient(root))


def test_a_secret_in_a_correction_is_refused_in_chinese(zh, world):
    data = {"content": "The deploy password = hunter2hunter2", "version": "1"}
    html = zh.post(f"/m/{world.editor.pk}/correct/", data, htmx=True).content.decode()
    assert "似乎包含凭据" in html and "机密信息绝不会被存储" in html
    assert "looks like it contains" not in html
    assert Memory.objects.get(pk=world.editor.pk).content == "The preferred editor is Helix."


def test_an_empty_correction_is_refused_in_chinese(zh, world):
    html = zh.post(f"/m/{world.editor.pk}/correct/", {"content": "  ", "version": "1"}, htmx=True)
    assert "内容为空" in html.content.decode()


def test_a_refused_restore_speaks_chinese_in_the_card_and_as_a_message(zh, world, owner):
    remember(Actor.owner(owner), "Old habit: tabs for indentation.")  # a live twin now exists
    html = zh.post(f"/m/{world.archived.pk}/restore/", htmx=True).content.decode()
    assert "已有一条有效的记忆表达了相同的内容" in html and "already says" not in html
    plain = zh.post(f"/m/{world.archived.pk}/restore/", {"next": "/archive/"}, follow=True)
    assert "已有一条有效的记忆表达了相同的内容" in plain.content.decode()
    assert Memory.objects.get(pk=world.archived.pk).status == "archived"


def test_a_refused_bulk_restore_lists_the_reason_in_chinese(zh, world, owner):
    remember(Actor.owner(owner), "Old habit: tabs for indentation.")
    data = {"list": "archive", "action": "restore", "scope": "selected"}
    html = zh.post("/bulk/", {**data, "ids": [str(world.archived.pk)]}, htmx=True)
    assert "已有一条有效的记忆表达了相同的内容" in html.content.decode()
    plain = zh.post("/bulk/", {**data, "ids": [str(world.archived.pk)], "next": "/archive/"},
                    follow=True)  # fmt: skip
    assert "已有一条有效的记忆表达了相同的内容" in plain.content.decode()


def test_activity_reasons_read_in_chinese(zh, world):
    html = zh.get("/activity/").content.decode()
    # The agent's conflicting write was recorded as contradicting the owner's memory.
    assert "与已确认的记忆 " in html and " 相矛盾" in html  # the memory named by its words
    assert "contradicts confirmed memory" not in html


def test_retention_rules_jobs_and_window_errors_read_in_chinese(zh_admin):
    MaintenanceRun.objects.create(
        task=RETENTION_JOB.name, status="succeeded", started_at=timezone.now(),
        finished_at=timezone.now(), result={},
    )  # fmt: skip
    html = zh_admin.get("/settings/").content.decode()
    assert "交接胶囊过期后再保留这么久" in html  # a rule's description
    assert "删除保留期规定已过期的内容" in html  # the cleanup job's description
    assert "Remove what the retention windows say" not in html
    response = zh_admin.post("/settings/retention/expired_handoffs/", {"value": "0"}, htmx=True)
    assert response.status_code == 400
    assert "保留期必须在 1 到" in response.content.decode()


def test_the_agent_api_keeps_its_english_envelope(client, make_token):
    _, raw = make_token("claude-code")
    response = client.post(
        "/api/v1/memories",
        {"content": "The deploy password = hunter2hunter2", "kind": "fact"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}", "Accept-Language": "zh-CN,zh;q=0.9"},
    )
    error = response.json()["error"]
    assert response.status_code == 422 and error["code"] == "SECRET_REJECTED"
    assert error["message"].startswith("content looks like it contains a credential (rule: ")


def test_a_bad_strip_marker_is_refused_in_chinese(zh):
    response = zh.post("/settings/markers/", {"start": "", "end": "</m>"}, htmx=True)
    assert response.status_code == 400
    assert "起始标记不能为空。" in response.content.decode()
