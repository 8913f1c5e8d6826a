"""The dashboard in a real browser: sign in, every card action, tokens, language, search."""

from __future__ import annotations

import re

import pytest

from foundation.actors import Actor
from memories.models import Memory
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TABS = [
    "Overview",
    "Core",
    "Projects",
    "Recent",
    "Review",
    "Archive",
    "Search",
    "Tokens",
    "Activity",
]


@pytest.fixture
def store(owner, make_token):
    """What the tabs show: core, a dispute, an inferred project note, an archived one."""
    from memories.services import memory_archive, memory_lock

    me = Actor.owner(owner)
    agent = Actor.agent(make_token("claude-code")[0])
    locked = MemoryFactory(actor=me, content="Always answer in British English.")
    memory_lock(actor=me, memory_id=locked.pk)
    editor = MemoryFactory(actor=me, content="The preferred editor is Helix.", key="editor")
    disputed = MemoryFactory(actor=agent, content="The preferred editor is VS Code.", key="editor")
    inferred = MemoryFactory(
        actor=agent, content="The api service deploys with Kubernetes.", kind="fact",
        scope_type="project", scope_key="github:ada/api", trust="inferred",
    )  # fmt: skip
    old = MemoryFactory(actor=me, content="Old habit: tabs for indentation.")
    memory_archive(actor=me, memory_id=old.pk)
    return {"editor": editor, "disputed": disputed, "inferred": inferred, "archived": old}


def card(page, memory):
    return page.locator(f"#m-{memory.pk}")


def more(page, memory):
    """The card's secondary actions, its "More" expander opened."""
    found = card(page, memory)
    if not found.locator("details.more-actions").evaluate("element => element.open"):
        found.locator("details.more-actions > summary").click()
    return found


def test_sign_in_and_screenshot_every_tab(page, store, shoot):
    page.goto("/")
    assert "/signin/" in page.url
    shoot(page, "00-signin")
    sign_in(page)
    for number, tab in enumerate(TABS, start=1):
        page.get_by_role("navigation", name="Sections").get_by_role(
            "link", name=re.compile(f"^{tab}")
        ).click()
        page.wait_for_load_state()
        assert page.locator('.tabs a[aria-current="page"]').inner_text().startswith(tab)
        shoot(page, f"{number:02d}-{tab.lower()}")


def test_confirm_lock_correct_archive_restore_and_delete(page, store, shoot):
    sign_in(page)
    page.goto("/review/")
    review_count = page.locator("#count-review")
    assert review_count.inner_text() == "2"
    inferred = card(page, store["inferred"])
    inferred.get_by_role("button", name="Confirm").click()
    page.wait_for_function("document.querySelector('#count-review').textContent === '1'")
    assert "confirmed" in card(page, store["inferred"]).locator(".badge.trust").inner_text()
    # the focus stays on the card that was acted on, not on <body>
    focused = f"document.activeElement.closest('#m-{store['inferred'].pk}') !== null"
    page.wait_for_function(focused)
    assert Memory.objects.get(pk=store["inferred"].pk).trust == "confirmed"

    page.goto("/")
    more(page, store["editor"]).get_by_role("button", name="Lock").click()
    card(page, store["editor"]).locator(".badge.trust", has_text="locked").wait_for()
    card(page, store["editor"]).get_by_role("button", name="Undo").wait_for()  # offered
    more(page, store["editor"]).get_by_role("button", name="Unlock").wait_for()
    assert Memory.objects.get(pk=store["editor"].pk).trust == "locked"

    more(page, store["editor"]).get_by_role("link", name="Correct").click()
    box = card(page, store["editor"]).get_by_label("Corrected text")
    page.wait_for_function("document.activeElement.tagName === 'TEXTAREA'")  # ready to type
    box.fill("")
    card(page, store["editor"]).get_by_role("button", name="Save as new version").click()
    error = card(page, store["editor"]).locator(".error.field")
    error.wait_for()
    shoot(page, "20-correct-error")
    box = card(page, store["editor"]).get_by_label("Corrected text")
    box.fill("The preferred editor is Zed.")
    card(page, store["editor"]).get_by_role("button", name="Save as new version").click()
    new = page.locator("article", has_text="The preferred editor is Zed.")
    new.locator(".version").filter(has_text="v2").wait_for()
    corrected = Memory.objects.get(content="The preferred editor is Zed.")
    assert corrected.version == 2 and corrected.trust == "locked"
    shoot(page, "21-corrected")

    card(page, corrected).get_by_role("button", name="Archive").click()
    card(page, corrected).get_by_role("button", name="Restore").wait_for()
    page.wait_for_function("document.querySelector('#count-archive').textContent === '3'")
    card(page, corrected).get_by_role("button", name="Restore").click()
    card(page, corrected).get_by_role("button", name="Archive").wait_for()
    assert Memory.objects.get(pk=corrected.pk).status == "active"

    more(page, corrected).get_by_role("link", name="History").click()
    card(page, corrected).locator(".timeline").wait_for()
    assert "corrected" in card(page, corrected).locator(".timeline").inner_text()

    more(page, corrected).get_by_role("link", name="Delete").click()
    card(page, corrected).get_by_role("button", name="Yes, delete permanently").wait_for()
    page.wait_for_function("document.activeElement.textContent.includes('Yes, delete')")
    shoot(page, "22-delete-confirmation")
    card(page, corrected).get_by_role("button", name="Yes, delete permanently").click()
    page.get_by_text("Deleted. The content is gone from the history too.").wait_for()
    assert not Memory.objects.filter(pk=corrected.pk).exists()


def test_actions_work_without_javascript(chromium, live_server, store):
    context = chromium.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    sign_in(page)
    page.goto("/review/")
    card(page, store["inferred"]).get_by_role("button", name="Confirm").click()
    page.wait_for_url("**/review/")
    assert Memory.objects.get(pk=store["inferred"].pk).trust == "confirmed"
    context.close()


def test_create_copy_and_revoke_a_token(page, store, shoot):
    sign_in(page)
    page.goto("/tokens/")
    page.get_by_label("Name", exact=True).fill("Laptop Codex")
    page.get_by_label("Agent name").fill("codex")
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#new-secret")
    secret.wait_for()
    assert secret.input_value().startswith("cont_pat_")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    created = page.locator(".secret")
    created.get_by_role("button", name="Copy").click()
    created.get_by_text("Copied").wait_for()
    setup = page.locator("#setup-codex-command")
    assert setup.input_value().endswith(f"--token {secret.input_value()} --mcp-only")
    shoot(page, "30-token-created")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("tr", has_text="Laptop Codex").get_by_role("button", name="Revoke").click()
    page.get_by_text("was revoked").wait_for()
    assert page.locator("tr", has_text="Laptop Codex").get_by_text("revoked").count() >= 1
    assert "cont_pat_" not in page.content()


def test_switch_to_simplified_chinese_and_back(page, store, shoot):
    sign_in(page)
    page.get_by_label("Language").select_option("zh-hans")
    page.get_by_role("button", name="Switch").click()
    page.get_by_role("link", name=re.compile("^核心")).wait_for()
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    for tab in ["核心", "审阅", "令牌"]:
        page.get_by_role("link", name=re.compile(f"^{tab}")).click()
        page.wait_for_load_state()
        shoot(page, f"40-zh-{tab}")
    page.get_by_label("语言").select_option("en")
    page.get_by_role("button", name="切换").click()
    page.get_by_role("link", name=re.compile("^Core")).wait_for()


def test_live_search_filters_as_you_type(page, store, shoot):
    sign_in(page)
    page.goto("/search/")
    page.get_by_label("Search memories").press_sequentially("kubern", delay=40)
    page.wait_for_function("!document.querySelector('#results').textContent.includes('Helix')")
    results = page.locator("#results .content")
    assert results.count() == 1 and "Kubernetes" in results.first.inner_text()
    assert "q=kubern" in page.url
    page.get_by_label("Search memories").fill("")
    page.get_by_label("Status").select_option("disputed")
    page.locator("#results .content", has_text="VS Code").wait_for()
    assert page.locator("#results .content").count() == 1
    assert "status=disputed" in page.url and "fragment" not in page.url
    shoot(page, "50-search")


def test_bulk_archive_a_shift_clicked_range_then_delete_with_a_confirmation(owner, page, shoot):
    me = Actor.owner(owner)
    notes = [MemoryFactory(actor=me, content=f"Bulk note number {n}.") for n in range(5)]
    sign_in(page)
    page.goto("/recent/")
    boxes = page.locator("input[type=checkbox][name=ids]")
    assert boxes.count() == 5
    boxes.nth(0).check()
    boxes.nth(3).click(modifiers=["Shift"])  # the range 0..3 is ticked, the fifth is not
    assert [boxes.nth(i).is_checked() for i in range(5)] == [True, True, True, True, False]
    bar = page.locator("form.bulk").first
    bar.get_by_label("Action").select_option("archive")
    bar.get_by_role("button", name="Apply to selected").click()
    status = page.locator(".bulk-status").first
    status.get_by_text(re.compile(r"Archived: 4 done, 0 refused, 0 not found")).wait_for()
    page.wait_for_function("document.querySelectorAll('input[name=ids]').length === 1")
    archived = set(Memory.objects.filter(status="archived").values_list("pk", flat=True))
    assert len(archived) == 4
    # focus moves once the new list has settled, a moment after it is swapped in
    page.wait_for_function("document.activeElement.closest('.bulk-status') !== null")
    shoot(page, "60-bulk-archived")

    page.goto("/archive/")
    bar = page.locator("form.bulk").first
    bar.get_by_role("button", name="Select all on this page").click()
    bar.get_by_label("Action").select_option("delete")
    bar.get_by_role("button", name="Apply to selected").click()
    confirm = page.locator(".bulk-status .confirm-delete button").first
    confirm.wait_for()
    assert Memory.objects.filter(status="archived").count() == 4  # nothing gone before yes
    page.wait_for_function("document.activeElement.closest('.confirm-delete') !== null")
    confirm.click()
    page.locator(".bulk-status", has_text="4 done").first.wait_for()
    assert not Memory.objects.filter(pk__in=archived).exists()
    assert Memory.objects.filter(pk__in=[n.pk for n in notes]).count() == 1
