"""The dashboard's shell: the theme on <html>, its switch without JavaScript, the folding
menu, the loading state and the shortcut help every page carries."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def html_tag(response) -> str:
    return re.search(r"<html[^>]*>", response.content.decode()).group(0)


def test_a_first_visit_follows_the_system_theme(browser, world):
    assert 'data-theme="system"' in html_tag(browser.get("/"))


def test_the_theme_switch_is_remembered_and_rendered_on_html(browser, world):
    response = browser.post("/theme/", {"theme": "dark", "next": "/review/"})
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert 'data-theme="dark"' in html_tag(browser.get("/review/"))
    assert 'data-theme="dark"' in html_tag(browser.get("/settings/"))


def test_choosing_system_again_forgets_the_choice(browser, world):
    browser.post("/theme/", {"theme": "light", "next": "/"})
    assert 'data-theme="light"' in html_tag(browser.get("/"))
    browser.post("/theme/", {"theme": "system", "next": "/"})
    assert 'data-theme="system"' in html_tag(browser.get("/"))


def test_an_unknown_theme_is_refused_and_changes_nothing(browser, world):
    browser.post("/theme/", {"theme": "dark", "next": "/"})
    response = browser.post("/theme/", {"theme": "neon", "next": "/"})
    assert response.status_code == 400 and b"light, dark or system" in response.content
    assert 'data-theme="dark"' in html_tag(browser.get("/"))


def test_a_forged_theme_cookie_is_not_echoed(browser, world):
    browser.cookies["continuity_theme"] = '"><script>'
    assert 'data-theme="system"' in html_tag(browser.get("/"))


def test_the_theme_switch_goes_back_only_to_our_own_pages(browser, world):
    response = browser.post("/theme/", {"theme": "dark", "next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/"


def test_the_sign_in_page_has_the_theme_switch_too(anonymous):
    anonymous.post("/theme/", {"theme": "dark", "next": "/signin/"})
    response = anonymous.get("/signin/")
    assert 'data-theme="dark"' in html_tag(response)
    assert 'name="theme"' in response.content.decode()


def test_the_tabs_sit_in_a_menu_that_opens_without_javascript(browser, world):
    html = browser.get("/").content.decode()
    menu = re.search(r'<details class="menu">(.*?)</details>', html, re.S)
    assert menu, "the menu is a closed <details>"
    assert "<summary>Menu</summary>" in menu.group(1)
    assert 'aria-label="Sections"' in menu.group(1) and 'href="/review/"' in menu.group(1)


def test_every_htmx_request_shows_the_indicator(browser, world):
    html = browser.get("/review/").content.decode()
    assert re.search(r'id="busy" class="busy htmx-indicator" role="status"', html)


def test_the_shortcut_help_lists_the_keys(browser, world):
    html = browser.get("/").content.decode()
    dialog = re.search(r'<dialog id="keys".*?</dialog>', html, re.S).group(0)
    for key in ("/", "j", "k", "c", "l", "a", "x", "?"):
        assert f"<kbd>{key}</kbd>" in dialog


def test_the_shell_speaks_chinese(browser, world):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    html = browser.get("/").content.decode()
    for text in ("菜单", "主题", "键盘快捷键", "处理中", "跟随系统"):
        assert text in html, text


def test_wide_tables_scroll_in_their_own_focusable_box(browser, world, make_token):
    make_token("codex")
    for path in ("/tokens/", "/settings/", "/activity/"):
        html = browser.get(path).content.decode()
        tables = html.count("<table")
        wrapped = len(
            re.findall(
                r'<div class="table-wrap"[^>]* tabindex="0"[^>]*><table',
                html,
            )
        )
        assert tables and wrapped == tables, path


def test_no_template_comment_leaks_into_the_page(browser, world):
    assert "{#" not in browser.get("/").content.decode()
