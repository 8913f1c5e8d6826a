"""English and Simplified Chinese: the switcher, Accept-Language, translated labels."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_english_is_the_default(browser, world):
    html = browser.get("/").content.decode()
    assert '<html lang="en" ' in html and ">Core" in html


def test_the_switcher_sets_simplified_chinese(browser, world):
    response = browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/review/"})
    assert response.status_code == 302 and response["Location"] == "/review/"
    html = browser.get("/review/").content.decode()
    assert '<html lang="zh-hans" ' in html
    assert (
        "核心" in html
        and "待确认" in html
        and "确认" in html
        and "已确认" in html
        and "有争议" in html
    )


def test_accept_language_picks_chinese_for_a_new_visitor(anonymous):
    html = anonymous.get("/signin/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).content.decode()
    assert "登录" in html


def test_switching_back_to_english(browser, world):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    browser.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert ">Core" in browser.get("/").content.decode()
