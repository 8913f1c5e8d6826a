"""The card's new words, the rows toggle, undo and Activity's excerpts in Simplified Chinese."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def chinese(browser):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    return browser


def test_a_card_in_chinese_says_who_receives_it_and_where_it_came_from(chinese, world):
    html = chinese.hx_get(f"/m/{world.inferred.pk}/").content.decode()
    assert "共享：智能体会收到" in html and "由 claude-code 使用令牌" in html
    assert "<summary>更多" in html


def test_the_view_toggle_and_undo_in_chinese(chinese, world):
    html = chinese.get("/recent/").content.decode()
    assert "显示为" in html and "卡片" in html and "列表行" in html
    html = chinese.post(f"/m/{world.inferred.pk}/confirm/", htmx=True).content.decode()
    assert "已确认。" in html and ">撤销</button>" in html


def test_a_refused_undo_in_chinese(chinese, world):
    html = chinese.post(f"/m/{world.editor.pk}/archive/", htmx=True).content.decode()
    event = html.split('name="event" value="', 1)[1].split('"', 1)[0]
    chinese.post(f"/m/{world.editor.pk}/undo/", {"event": event}, htmx=True)
    again = chinese.post(f"/m/{world.editor.pk}/undo/", {"event": event}, htmx=True)
    assert again.status_code == 409 and "该操作之后这条记忆又有更改" in again.content.decode()


def test_activity_names_a_deleted_memory_in_chinese(chinese, world):
    chinese.post(f"/m/{world.archived.pk}/delete/", {"confirm": "yes"})
    assert "一条已删除的记忆" in chinese.get("/activity/").content.decode()
