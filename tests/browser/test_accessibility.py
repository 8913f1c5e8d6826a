"""axe-core (vendored in tests/browser/vendor, see its README) over every top-level tab of
the dashboard, in English and Chinese, at a desktop and a phone width, and in each colour
scheme the dashboard draws. Any violation fails
the run, named by rule and element; every page checked is also saved as a screenshot
(.artifacts/screenshots), so CI keeps a picture of each tab, language and width."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.preferences import memory_view_set
from foundation.actors import Actor
from memories.services import memory_archive, memory_lock
from tests.factories import CandidateFactory, HandoffCapsuleFactory, MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
# The rules axe groups as WCAG 2.x A/AA, and its best practices (landmarks, headings).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
# Every link in templates/dashboard/_tabs.html, by its path.
TABS = {
    "core": "/", "overview": "/overview/", "projects": "/projects/", "recent": "/recent/",
    "review": "/review/", "archive": "/archive/", "inbox": "/inbox/", "search": "/search/?q=editor",
    "handoffs": "/handoffs/", "tokens": "/tokens/", "activity": "/activity/",
    "settings": "/settings/",
}  # fmt: skip
LANGUAGES = ["en", "zh-hans"]
VIEWPORTS = {"desktop": (1440, 900), "phone": (390, 844)}
COLOUR_SCHEMES = ["light", "dark"]
SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"
RUN_AXE = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact,
    targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    summary: v.nodes.length ? v.nodes[0].failureSummary.split("\\n").slice(0, 3).join(" ") : "",
  }));
}"""


@pytest.fixture
def store(owner, make_token):
    """Something on every tab: core, a dispute, a project note (English and Chinese), an
    archived memory, a candidate in the inbox, a handoff, a token."""
    me = Actor.owner(owner)
    agent = Actor.agent(make_token("claude-code")[0])
    locked = MemoryFactory(actor=me, content="Always answer in British English.")
    memory_lock(actor=me, memory_id=locked.pk)
    MemoryFactory(actor=me, content="The preferred editor is Helix.", key="editor")
    MemoryFactory(actor=agent, content="The preferred editor is VS Code.", key="editor")
    MemoryFactory(
        actor=agent, content="api 服务用 Kubernetes 部署。", kind="fact",
        scope_type="project", scope_key="github:ada/api", trust="inferred",
    )  # fmt: skip
    old = MemoryFactory(actor=me, content="Old habit: tabs for indentation.")
    memory_archive(actor=me, memory_id=old.pk)
    CandidateFactory(owner=owner, content="Releases go out on Tuesdays.")
    HandoffCapsuleFactory(actor=agent, task_id="TASK-7", summary="Search filters half done.")


def violations_of(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, AXE_TAGS)


def described(tab: str, found: list[dict]) -> list[str]:
    return [
        f"{tab}: {v['id']} ({v['impact']}) at {', '.join(v['targets'])} — {v['summary']}"
        for v in found
    ]


@pytest.mark.parametrize("colour_scheme", COLOUR_SCHEMES)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_tab_passes_axe(
    chromium, live_server, store, shoot, language, viewport, colour_scheme
):
    width, height = VIEWPORTS[viewport]
    context = chromium.new_context(
        base_url=live_server.url, locale="en-US", viewport={"width": width, "height": height},
        color_scheme=colour_scheme, bypass_csp=True,  # axe is injected as a script tag
    )  # fmt: skip
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        sign_in(page)
        context.add_cookies(
            [{"name": "django_language", "value": language, "url": live_server.url}]
        )
        problems: list[str] = []
        for tab, path in TABS.items():
            page.goto(path)
            page.wait_for_load_state("networkidle")
            page.wait_for_function(SETTLED)
            assert page.locator("html").get_attribute("lang") == language
            shoot(page, f"axe-{colour_scheme}-{language}-{viewport}-{tab}")
            problems += described(tab, violations_of(page))
    finally:
        context.close()
    assert not problems, f"{len(problems)} axe violations:\n" + "\n".join(problems)


# The lists the rows view (one line per memory) draws, as the owner who picked it sees them.
ROWS_TABS = ("core", "projects", "recent", "review", "archive", "search")


@pytest.mark.parametrize("colour_scheme", COLOUR_SCHEMES)
def test_the_rows_view_passes_axe(chromium, live_server, store, owner, shoot, colour_scheme):
    memory_view_set(actor=Actor.owner(owner), view="rows")
    context = chromium.new_context(
        base_url=live_server.url, locale="en-US", viewport={"width": 1440, "height": 900},
        color_scheme=colour_scheme, bypass_csp=True,
    )  # fmt: skip
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        sign_in(page)
        problems: list[str] = []
        for tab in ROWS_TABS:
            page.goto(TABS[tab])
            page.wait_for_load_state("networkidle")
            page.wait_for_function(SETTLED)
            assert page.locator("#main article.row").count(), tab
            shoot(page, f"axe-{colour_scheme}-rows-{tab}")
            problems += described(tab, violations_of(page))
    finally:
        context.close()
    assert not problems, f"{len(problems)} axe violations:\n" + "\n".join(problems)


def test_the_axe_check_names_a_violation_it_finds(page, store):
    """The check above can fail: an unlabelled field added to a real page is reported."""
    sign_in(page)
    page.goto("/search/")
    page.evaluate("document.querySelector('main').append(document.createElement('input'))")
    found = violations_of(page)
    assert [v["id"] for v in found] == ["label"]
    assert described("search", found)[0].startswith("search: label (critical) at #main > input")
