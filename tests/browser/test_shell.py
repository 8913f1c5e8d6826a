"""The dashboard's shell in Chromium: a phone-sized screen on every tab, the dark theme,
and reviewing a list from the keyboard."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.models import Memory
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LONG_URL = "https://example.com/" + "a-very-long-path-segment-" * 8 + "?query=" + "x" * 80


@pytest.fixture
def store(owner, make_token):
    """Long words everywhere a tab shows text: scope keys, URLs, agent names, Chinese."""
    from memories.services import memory_archive

    me = Actor.owner(owner)
    agent = Actor.agent(make_token("claude-code-with-a-rather-long-agent-name")[0])
    make_token("codex")
    MemoryFactory(actor=me, content=f"Docs live at {LONG_URL}")
    MemoryFactory(actor=me, content="我们决定以后所有接口都用中文错误信息。")
    MemoryFactory(
        actor=agent, content="The api deploys with Kubernetes.", kind="fact", trust="inferred",
        scope_type="project", scope_key="github:ada/" + "really-long-repository-name-" * 4,
    )  # fmt: skip
    old = MemoryFactory(actor=me, content="Old habit: tabs for indentation.")
    memory_archive(actor=me, memory_id=old.pk)


def phone(chromium, live_server, **options):
    context = chromium.new_context(
        base_url=live_server.url, viewport=PHONE, bypass_csp=True, locale="en-US", **options
    )
    context.set_default_timeout(10_000)
    return context


WIDEST = """() => {
  const limit = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter((e) => {
    if (e.closest('.table-wrap') && !e.matches('.table-wrap')) return false;
    if (!e.checkVisibility()) return false;
    const box = e.getBoundingClientRect();
    return box.width > 0 && box.right > limit + 1;
  });
  return {page: document.documentElement.scrollWidth, limit,
          wide: wide.slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + e.getBoundingClientRect().right)};
}"""


# A label on one line is under ~2.6 font sizes tall (line height plus padding); broken one
# character per line, 已确认 stands three times that.
STACKED = """() => [...document.querySelectorAll(
    '#main .badge, #main button, #main .button, #main th[scope=col], .count')]
  .filter((e) => e.checkVisibility() && /[\\u3400-\\u9fff]/.test(e.textContent))
  .filter((e) => e.getBoundingClientRect().height > 2.6 * parseFloat(getComputedStyle(e).fontSize))
  .map((e) => e.textContent.trim())"""


def test_no_tab_is_wider_than_a_phone(chromium, live_server, store, shoot):
    context = phone(chromium, live_server)
    page = context.new_page()
    sign_in(page)
    tabs = page.locator(".tabs a").evaluate_all("links => links.map((a) => a.href)")
    assert len(tabs) >= 12
    for href in tabs:
        for language in ("en", "zh-hans"):
            context.add_cookies([{"name": "django_language", "value": language, "url": href}])
            page.goto(href)
            page.wait_for_load_state("networkidle")
            measure = page.evaluate(WIDEST)
            assert measure["page"] <= PHONE["width"], (href, language, measure)
            if language == "zh-hans":
                assert page.evaluate(STACKED) == [], href
    shoot(page, "shell-phone-settings")
    context.close()


def test_the_phone_menu_folds_the_tabs_away_and_opens_on_a_tap(chromium, live_server, store):
    context = phone(chromium, live_server)
    page = context.new_page()
    sign_in(page)
    tabs = page.get_by_role("navigation", name="Sections")
    assert not tabs.is_visible()
    main_top = page.locator("#main").bounding_box()["y"]
    assert main_top < 120  # the header takes one line, not a screen
    page.get_by_text("Menu").click()
    tabs.get_by_role("link", name="Review").click()
    page.wait_for_url("**/review/")
    context.close()


def test_dark_theme_follows_the_system(chromium, live_server, store, shoot):
    context = chromium.new_context(
        base_url=live_server.url, color_scheme="dark", viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    sign_in(page)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(15, 20, 25)"
    shoot(page, "shell-dark-system")
    page.get_by_label("Theme").select_option("light")
    page.get_by_role("button", name="Apply", exact=True).click()
    page.wait_for_function("document.documentElement.dataset.theme === 'light'")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(246, 247, 249)"
    page.reload()  # the choice is remembered
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    context.close()


def test_tabs_show_on_a_wide_screen_without_the_menu_button(page, store):
    sign_in(page)
    assert page.get_by_role("navigation", name="Sections").is_visible()
    assert not page.get_by_text("Menu", exact=True).is_visible()


def test_keyboard_review_with_j_k_and_c(page, owner, make_token):
    agent = Actor.agent(make_token("claude-code")[0])
    first = MemoryFactory(actor=agent, content="Tests run with pytest.", trust="inferred")
    second = MemoryFactory(actor=agent, content="Builds use uv.", trust="inferred")
    sign_in(page)
    page.goto("/review/")
    cards = page.locator("#main article.card[id^='m-']")
    ids = cards.evaluate_all("cards => cards.map((c) => c.id)")
    assert {f"m-{first.pk}", f"m-{second.pk}"} <= set(ids)
    page.keyboard.press("j")
    page.wait_for_function(f"document.activeElement.id === '{ids[0]}'")
    page.keyboard.press("j")
    page.wait_for_function(f"document.activeElement.id === '{ids[1]}'")
    page.keyboard.press("k")
    page.wait_for_function(f"document.activeElement.id === '{ids[0]}'")
    page.keyboard.press("c")
    # The confirmed card is swapped in place and keeps the focus, so j goes on from it.
    page.wait_for_function(
        f"document.activeElement.closest('#{ids[0]}') !== null"
        f" && document.querySelector('#{ids[0]}.trust-confirmed') !== null"
    )
    target = Memory.objects.get(pk=ids[0].removeprefix("m-"))
    assert target.trust == "confirmed"
    page.keyboard.press("j")
    page.wait_for_function(f"document.activeElement.id === '{ids[1]}'")
    page.keyboard.press("?")
    page.wait_for_function("document.getElementById('keys').open")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.getElementById('keys').open")
    page.keyboard.press("/")
    page.wait_for_url("**/search/")


def test_shortcuts_are_ignored_while_typing(page, owner, make_token):
    agent = Actor.agent(make_token("claude-code")[0])
    MemoryFactory(actor=agent, content="Tests run with pytest.", trust="inferred")
    sign_in(page)
    page.goto("/search/")
    field = page.locator("#q")
    field.focus()
    page.keyboard.type("jkc/")
    assert field.input_value() == "jkc/"
    page.wait_for_function("document.activeElement.id === 'q'")


def test_a_waiting_action_shows_the_indicator_and_disables_its_button(page, owner, make_token):
    agent = Actor.agent(make_token("claude-code")[0])
    memory = MemoryFactory(actor=agent, content="Tests run with pytest.", trust="inferred")
    sign_in(page)
    page.goto("/review/")
    held = []
    page.route(f"**/m/{memory.pk}/confirm/", lambda route: held.append(route))
    button = page.locator(f"#m-{memory.pk} button.confirm")
    button.click()
    page.wait_for_function(
        f"document.querySelector('#m-{memory.pk} button.confirm').getAttribute('aria-disabled')"
        " === 'true' && document.getElementById('busy').classList.contains('htmx-request')"
    )
    button.click(force=True)  # a second click while waiting sends nothing more
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_function(f"document.querySelector('#m-{memory.pk}.trust-confirmed') !== null")
    page.wait_for_function("!document.getElementById('busy').classList.contains('htmx-request')")
    assert Memory.objects.get(pk=memory.pk).trust == "confirmed"


def test_x_ticks_the_current_items_checkbox(page, owner, make_token):
    agent = Actor.agent(make_token("claude-code")[0])
    memory = MemoryFactory(actor=agent, content="Tests run with pytest.", trust="inferred")
    sign_in(page)
    page.goto("/review/")
    page.keyboard.press("j")
    page.wait_for_function(f"document.activeElement.id === 'm-{memory.pk}'")
    page.keyboard.press("x")
    page.wait_for_function(f"document.querySelector('#m-{memory.pk} input[name=ids]').checked")
    page.keyboard.press("x")
    page.wait_for_function(f"!document.querySelector('#m-{memory.pk} input[name=ids]').checked")
