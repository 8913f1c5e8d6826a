"""Search in real Chromium: the facet selects and "written by me" narrow the results in
place, the words searched for are marked, and the address bar keeps the filters (never
the htmx fragment), so reloading it is the same search."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COUNT = "document.querySelector('#results .result-count').textContent.trim()"


@pytest.fixture
def store(owner, make_token):
    me = Actor.owner(owner)
    cursor = Actor.agent(make_token("cursor")[0])
    MemoryFactory(actor=me, content="The preferred editor is Helix.")
    MemoryFactory(actor=cursor, content="Cursor's editor settings sync nightly.")
    MemoryFactory(
        actor=cursor, content="The infra repo pins Terraform.", kind="fact",
        scope_type="project", scope_key="github:ada/infra",
    )  # fmt: skip


def test_facets_and_written_by_me_narrow_results_and_stay_in_the_address(page, store, shoot):
    sign_in(page)
    page.goto("/search/")
    assert page.evaluate(COUNT) == "3 memories match."
    page.get_by_label("Agent").select_option("cursor")
    page.wait_for_function(f"{COUNT} === '2 memories match.'")
    assert "agent=cursor" in page.url and "fragment" not in page.url
    page.get_by_label("Search memories").press_sequentially("EDITOR", delay=30)
    page.wait_for_function(f"{COUNT} === '1 memory matches.'")
    assert page.locator("#results .content mark").all_inner_texts() == ["editor"]
    page.get_by_label("Agent").select_option("")
    page.get_by_label("Written by me (1)").check()
    page.wait_for_function(
        "document.querySelector('#results .content')?.textContent.includes('Helix')"
    )
    assert page.locator("#results .content").count() == 1
    assert "mine=1" in page.url and "q=EDITOR" in page.url and "fragment" not in page.url
    shoot(page, "51-search-facets")
    page.reload()
    assert page.get_by_label("Search memories").input_value() == "EDITOR"
    assert page.get_by_label("Written by me (1)").is_checked()
    assert page.locator("#results mark").first.inner_text() == "editor"


def test_a_project_chosen_from_the_select_shows_its_memories(page, store):
    sign_in(page)
    page.goto("/search/")
    page.get_by_label("Project").select_option("github:ada/infra")
    page.wait_for_function(f"{COUNT} === '1 memory matches.'")
    assert "Terraform" in page.locator("#results .content").inner_text()
    assert "project=github%3Aada%2Finfra" in page.url
