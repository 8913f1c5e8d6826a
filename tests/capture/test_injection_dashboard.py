"""The dashboard's view of injection: the Injections page and "injected N times" on cards."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from foundation.actors import Actor
from injection.services import inject
from tests.dashboard.conftest import DashboardClient
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def roomy_time_budget(settings):
    """A loaded test machine (or a cold semantic model) must not turn these into time-budget
    answers; the budget itself has its own tests with a tiny setting."""
    settings.CONTINUITY_INJECT_BUDGET_MS = 30_000


@pytest.fixture
def browser(owner) -> DashboardClient:
    return DashboardClient(owner)


@pytest.fixture
def injected(owner_actor, make_token):
    """Two memories injected by two agents: deploy 3 times, carts once; one empty call."""
    shop = {"scope_type": "project", "scope_key": "github:acme/shop"}
    deploy = remember(owner_actor, "Deploy with Kubernetes using helm charts.", **shop).id
    carts = remember(owner_actor, "Carts are kept in Redis.", **shop).id
    claude = Actor.agent(make_token("claude-code")[0])
    codex = Actor.agent(make_token("codex")[0])
    for actor, prompt in [
        (claude, "kubernetes helm deploy"),
        (claude, "kubernetes helm deploy"),
        (codex, "kubernetes helm deploy"),
        (codex, "redis carts"),
        (codex, "天气怎么样"),
    ]:
        inject(actor=actor, prompt=prompt, project_key="github:acme/shop")
    return {"deploy": deploy, "carts": carts}


def test_the_injections_page_sums_calls_memories_and_tokens_per_agent_and_day(browser, injected):
    response = browser.get("/activity/injections/")

    assert response.status_code == 200
    page = response.content.decode()
    rows = (
        page.split('<table class="injections-summary">')[1].split("</table>")[0].split("<tr>")[2:]
    )
    claude = next(row for row in rows if "<td>claude-code</td>" in row)
    codex = next(row for row in rows if "<td>codex</td>" in row)
    assert "<td>2</td><td>0</td><td>1</td>" in claude  # calls, empty, distinct memories
    assert "<td>3</td><td>1</td><td>2</td>" in codex
    assert "Deploy with Kubernetes using helm charts.</a> ×2" in claude
    assert page.count("<code>" + injected["deploy"][:8] + "</code>") == 3


def test_receipts_show_a_prompt_hash_never_the_prompt(browser, injected):
    page = browser.get("/activity/injections/").content.decode()

    assert "天气怎么样" not in page and "kubernetes helm" not in page
    assert "nothing relevant" in page and page.count("<td>injected</td>") == 4


def test_more_receipts_load_as_an_htmx_fragment(browser, owner_actor, agent_actor):
    for index in range(60):
        inject(actor=agent_actor, prompt=f"question {index}")

    first = browser.get("/activity/injections/").content.decode()
    cursor = first.split("cursor=")[1].split("&")[0].split('"')[0]
    more = browser.hx_get(f"/activity/injections/?cursor={cursor}&fragment=page")

    assert more.status_code == 200 and "<h1>" not in more.content.decode()
    assert more.content.decode().count("<tr>") > 0


def test_cards_say_how_often_a_memory_was_injected_with_one_query_per_page(browser, injected):
    with CaptureQueriesContext(connection) as queries:
        page = browser.get("/recent/").content.decode()

    assert "injected 3 times" in page and "injected 1 time<" in page
    assert sum("capture_injectedmemory" in query["sql"] for query in queries.captured_queries) == 1


def test_the_activity_tab_links_to_injections(browser):
    assert 'href="/activity/injections/"' in browser.get("/activity/").content.decode()


def test_the_page_needs_the_owner_signed_in(client):
    response = client.get("/activity/injections/")

    assert response.status_code == 302 and "/signin/" in response["Location"]


def test_another_owners_receipts_are_not_shown(other_owner, injected):
    page = DashboardClient(other_owner).get("/activity/injections/").content.decode()

    assert "Nothing injected yet." in page and "claude-code" not in page


def test_the_injections_page_and_card_badge_read_in_chinese(browser, injected):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    page = browser.get("/activity/injections/").content.decode()
    card = browser.get("/recent/").content.decode()

    assert "注入记录" in page and "最近的回执" in page and "没有相关记忆" in page
    assert "已注入 3 次" in card
