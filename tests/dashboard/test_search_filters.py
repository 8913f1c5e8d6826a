"""Search's filters: selects built from the owner's own agents, projects and kinds with
their counts, "written by me", agents in any case, the result count, the filters kept in
the URL, and the query's words marked in the results (escaped first)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from foundation.actors import Actor

from .conftest import DashboardClient, contents, imported, remember, shown

pytestmark = pytest.mark.django_db


def option(html: str, name: str, value: str) -> str:
    """The text of the <option value=...> of the select `name`, with ' selected' if it is."""
    select = html.split(f'<select id="f-{name}" name="{name}">', 1)[1].split("</select>", 1)[0]
    found = re.search(rf'<option value="{re.escape(value)}"( selected)?>([^<]*)</option>', select)
    assert found, f"no option {value!r} in {name}: {select}"
    return found.group(2) + (" selected" if found.group(1) else "")


def test_the_selects_offer_the_owners_agents_projects_and_kinds_with_counts(
    browser, world, make_token, other_owner
):
    cursor = Actor.agent(make_token("cursor")[0])
    remember(cursor, "The infra repo pins Terraform 1.9.", kind="fact",
             scope_type="project", scope_key="github:ada/infra")  # fmt: skip
    remember(Actor.owner(other_owner), "Grace's own note.", kind="lesson",
             scope_type="project", scope_key="github:grace/secret")  # fmt: skip
    html = browser.get("/search/").content.decode()
    assert option(html, "agent", "claude-code") == "claude-code (2)"
    assert option(html, "agent", "cursor") == "cursor (1)"
    assert option(html, "project", "github:ada/infra") == "github:ada/infra (1)"
    assert option(html, "project", "github:ada/api") == "github:ada/api (1)"
    assert option(html, "kind", "fact") == "fact (2)"
    assert option(html, "kind", "preference") == "preference (4)"
    assert "grace/secret" not in html and 'value="lesson"' not in html
    assert "Written by me (3)" in html


def test_choosing_a_project_from_the_select_finds_its_memories(browser, world):
    page = browser.get("/search/", {"project": "github:ada/api"})
    assert contents(page) == ["The api service deploys with Kubernetes."]
    assert option(page.content.decode(), "project", "github:ada/api").endswith(" selected")


def test_an_agent_matches_in_any_case(browser, world):
    page = browser.get("/search/", {"agent": "CLAUDE-Code"})
    assert shown(page, "VS Code") and shown(page, "Kubernetes") and not shown(page, "Helix")
    assert option(page.content.decode(), "agent", "claude-code") == "claude-code (2) selected"


def test_an_agent_with_no_memories_stays_chosen_and_finds_nothing(browser, world):
    page = browser.get("/search/", {"agent": "gemini"})
    assert contents(page) == []
    assert option(page.content.decode(), "agent", "gemini") == "gemini (0) selected"


def test_written_by_me_keeps_only_what_the_owner_wrote(browser, world):
    page = browser.get("/search/", {"mine": "1"})
    assert sorted(contents(page)) == [
        "Always answer in British English.",
        "Old habit: tabs for indentation.",
        "The preferred editor is Helix.",
    ]
    assert 'name="mine" value="1" checked' in page.content.decode()
    both = browser.get("/search/", {"mine": "1", "agent": "claude-code"})
    assert contents(both) == []


def test_the_result_count_says_how_many_match_across_pages(browser, owner):
    imported(owner, 30, text="Deploy note number {n}.")
    imported(owner, 2, text="Unrelated line {n}.")
    html = browser.get("/search/", {"q": "deploy"}).content.decode()
    assert "30 memories match." in html and len(contents_of(html)) == 25


def contents_of(html: str) -> list[str]:
    return html.split('<p class="content"')[1:]


def test_each_facet_is_one_grouped_query_however_many_options_it_has(browser, owner, make_token):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert browser.get("/search/").status_code == 200
        return len(captured)

    remember(Actor.agent(make_token("agent-0")[0]), "First agent note.", kind="fact",
             scope_type="project", scope_key="github:ada/p0")  # fmt: skip
    few = queries()
    for n in range(1, 6):
        remember(Actor.agent(make_token(f"agent-{n}")[0]), f"Note {n} of another agent.",
                 kind=["fact", "decision", "lesson", "event", "outcome"][n - 1],
                 scope_type="project", scope_key=f"github:ada/p{n}")  # fmt: skip
    assert queries() == few


def test_a_bookmarked_search_url_shows_every_filter_as_it_was(browser, world):
    url = "/search/?q=kubernetes&kind=fact&agent=claude-code&project=github%3Aada%2Fapi"
    html = browser.get(url).content.decode()
    assert 'id="q" name="q" type="search" value="kubernetes"' in html
    assert option(html, "kind", "fact").endswith(" selected")
    assert option(html, "agent", "claude-code").endswith(" selected")
    assert option(html, "project", "github:ada/api").endswith(" selected")
    assert 'action="/search/"' in html and 'method="get"' in html


def test_the_next_page_link_keeps_the_filters_but_never_the_fragment(browser, owner):
    imported(owner, 30, text="Deploy note number {n}.")
    html = browser.get("/search/", {"q": "deploy", "kind": "fact"}).content.decode()
    more = re.search(r'<a class="more" href="([^"]+)" hx-get="([^"]+)"', html)
    assert more, "no next-page link"
    href, fragment_url = (value.replace("&amp;", "&") for value in more.groups())
    assert "q=deploy" in href and "kind=fact" in href and "cursor=" in href
    assert "fragment" not in href and "fragment=page" in fragment_url
    following = browser.hx_get(f"/search/{fragment_url}")
    assert "<html" not in following.content.decode() and len(contents(following)) == 5


def test_live_results_mark_the_words_searched_for_in_any_case(browser, world):
    response = browser.get(
        "/search/",
        {"q": "deploys with KUBERNETES"},
        headers={"HX-Request": "true", "HX-Target": "results"},
    )
    assert contents(response) == [
        "The api service <mark>deploys</mark> <mark>with</mark> <mark>Kubernetes</mark>."
    ]


def test_marking_escapes_the_memory_text_first(browser, owner):
    remember(Actor.owner(owner), 'A note quoting <script>alert("x")</script> & <b>bold</b>.')
    page = browser.get("/search/", {"q": "script"})
    assert contents(page) == [
        "A note quoting &lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt;"
        " &amp; &lt;b&gt;bold&lt;/b&gt;."
    ]
    assert "<script>alert" not in page.content.decode()


def test_a_query_that_looks_like_markup_is_marked_as_text(browser, owner):
    remember(Actor.owner(owner), "Use <b> for emphasis in the changelog.")
    page = browser.get("/search/", {"q": "<b>"})
    assert contents(page) == ["Use <mark>&lt;b&gt;</mark> for emphasis in the changelog."]


def test_chinese_words_are_marked_without_spaces_around_them(browser, owner):
    remember(Actor.owner(owner), "我们决定把缓存服务部署在东京。\n缓存要预热。")
    page = browser.get("/search/", {"q": "缓存"})
    assert contents(page) == [
        "我们决定把<mark>缓存</mark>服务部署在东京。<br><mark>缓存</mark>要预热。"
    ]


def test_cards_outside_search_are_not_marked(browser, world):
    assert "<mark>" not in browser.get("/recent/", {"q": "editor"}).content.decode()


def test_a_bad_agent_filter_is_refused_in_place(browser, world):
    page = browser.get("/search/", {"agent": "bad\x07name"})
    assert page.status_code == 400 and "printable characters" in page.content.decode()
    assert contents(page) == []


def test_another_owners_client_sees_only_their_own_choices(world, other_owner):
    html = DashboardClient(other_owner).get("/search/").content.decode()
    assert 'value="claude-code"' not in html and "Written by me (0)" in html


def test_live_results_do_not_count_the_facets_again(browser, world):
    def grouped(headers) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            browser.get("/search/", {"q": "editor"}, headers=headers)
        return [q["sql"] for q in captured if "GROUP BY" in q["sql"] and "source_agent" in q["sql"]]

    assert len(grouped({})) == 1  # the agents' counts, for the page's select
    assert grouped({"HX-Request": "true", "HX-Target": "results"}) == []
