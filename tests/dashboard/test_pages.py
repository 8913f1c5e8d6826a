"""The tab pages: signed-in only, the owner's data only, full pages or htmx fragments."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.models import Memory

from .conftest import DashboardClient, remember, shown

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/projects/",
    "/recent/",
    "/review/",
    "/archive/",
    "/activity/",
    "/search/",
    "/tokens/",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_sends_a_signed_out_visitor_to_sign_in(anonymous, path):
    response = anonymous.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/signin/?next=")


def test_root_is_the_dashboard_not_the_admin(browser, world):
    response = browser.get("/")
    assert response.status_code == 200
    assert b"Always answer in British English." in response.content


def test_sign_in_with_the_right_password_lands_on_core(anonymous, owner):
    response = anonymous.post("/signin/", {"username": "ada", "password": "correct horse battery"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert anonymous.get("/").status_code == 200


def test_sign_in_with_a_wrong_password_says_so_and_signs_nobody_in(anonymous, owner):
    response = anonymous.post("/signin/", {"username": "ada", "password": "nope"})
    assert response.status_code == 200
    assert b"do not match" in response.content
    assert anonymous.get("/").status_code == 302


def test_sign_out_is_a_post_and_ends_the_session(browser):
    assert browser.post("/signout/").status_code == 302
    assert browser.get("/").status_code == 302


def test_pages_carry_the_csrf_token_once_on_the_body_for_htmx(browser):
    html = browser.get("/").content.decode()
    assert '<body hx-headers=\'{"X-CSRFToken": "' in html
    assert "/static/vendor/htmx/htmx-2.0.11.min.js" in html


@pytest.mark.parametrize("path", PAGES)
def test_no_page_shows_another_owners_memories(path, world, other_owner):
    remember(Actor.owner(other_owner), "Grace keeps her notes in Emacs org-mode.")
    response = DashboardClient(other_owner).get(path)
    assert response.status_code == 200
    assert b"Helix" not in response.content and b"British English" not in response.content


def test_core_lists_locked_and_confirmed_global_memories_only(browser, world):
    page = browser.get("/")
    assert shown(page, "Always answer in British English.")
    assert shown(page, "The preferred editor is Helix.")
    assert not shown(page, "Kubernetes") and not shown(page, "VS Code")
    assert not shown(page, "tabs for indentation")


def test_projects_show_one_section_per_project_key_with_its_count(browser, world, agent_actor):
    remember(
        agent_actor,
        "The web app builds with pnpm.",
        scope_type="project",
        scope_key="github:ada/web",
    )
    remember(
        agent_actor,
        "The web app is tested with Playwright.",
        scope_type="project",
        scope_key="github:ada/web",
    )
    html = browser.get("/projects/").content.decode()
    assert 'github:ada/web <span class="count">2</span>' in html
    assert 'github:ada/api <span class="count">1</span>' in html
    html = browser.get("/projects/", {"project": "github:ada/api"}).content.decode()
    assert "Kubernetes" in html and "pnpm" not in html


def test_recent_shows_the_writing_agent(browser, world):
    html = browser.get("/recent/").content.decode()
    assert "by claude-code" in html


def test_review_shows_a_dispute_beside_the_memory_it_contradicts(browser, world):
    html = browser.get("/review/").content.decode()
    pair = html[html.index('class="pair"') :]
    assert pair.index("VS Code") < pair.index("contradicts") < pair.index("Helix")
    assert "The api service deploys with Kubernetes." in html  # inferred, awaiting confirmation


def test_archive_lists_archived_memories_with_a_restore_button(browser, world):
    html = browser.get("/archive/").content.decode()
    assert "tabs for indentation" in html
    assert f"/m/{world.archived.pk}/restore/" in html


def test_activity_filters_by_agent_and_event_type(browser, world):
    everyone = browser.get("/activity/").content.decode()
    assert "claude-code" in everyone and "locked" in everyone
    agent_only = browser.get("/activity/", {"agent": "claude-code"}).content.decode()
    assert agent_only.count("<tr><td><time") == 2  # the dispute and the inferred note
    owner_locks = browser.get(
        "/activity/", {"agent": "owner", "event_type": "locked"}
    ).content.decode()
    assert owner_locks.count("<tr><td><time") == 1


def test_lists_page_by_keyset_and_htmx_gets_only_the_next_page(browser, owner):
    me = Actor.owner(owner)
    for n in range(30):
        remember(me, f"Global fact number {n} about the build.")
    first = browser.get("/").content.decode()
    assert first.count('<article class="card') == 25
    assert "Load more" in first
    cursor = first.split("cursor=")[1].split("&")[0].split('"')[0]
    second = browser.hx_get("/", {"cursor": cursor, "fragment": "page"})
    html = second.content.decode()
    assert "<html" not in html
    assert html.count('<article class="card') == 5
    shown = set(first.split("Global fact number ")[1:]) | set(html.split("Global fact number ")[1:])
    assert len({part.split(" ")[0] for part in shown}) == 30


def test_a_garbled_cursor_is_refused_not_restarted_from_the_top(browser, world):
    response = browser.get("/", {"cursor": "!!not-a-cursor"})
    assert response.status_code == 400 and b"cursor is not valid" in response.content
    assert b'<article class="card' not in response.content


def test_search_matches_content_across_scopes_with_filters(browser, world):
    page = browser.get("/search/", {"q": "EDITOR"})
    assert shown(page, "Helix") and shown(page, "VS Code")
    page = browser.get("/search/", {"q": "editor", "status": "disputed"})
    assert shown(page, "VS Code") and not shown(page, "Helix")
    page = browser.get("/search/", {"q": "", "project": "github:ada/api"})
    assert shown(page, "Kubernetes") and not shown(page, "Helix")
    page = browser.get("/search/", {"agent": "claude-code", "kind": "fact"})
    assert shown(page, "Kubernetes") and not shown(page, "VS Code")
    page = browser.get("/search/", {"trust": "locked"})
    assert shown(page, "British English") and not shown(page, "Helix")
    page = browser.get("/search/", {"kind": "fact"})
    assert shown(page, "Kubernetes") and not shown(page, "Helix")


def test_live_search_answers_htmx_with_the_results_fragment_only(browser, world):
    response = browser.get(
        "/search/", {"q": "kubernetes"}, headers={"HX-Request": "true", "HX-Target": "results"}
    )
    assert "<html" not in response.content.decode()
    assert shown(response, "Kubernetes") and not shown(response, "Helix")


def test_search_with_an_oversize_query_says_so(browser, world):
    html = browser.get("/search/", {"q": "x" * 301}).content.decode()
    assert "at most 300" in html


def test_tab_counts_show_on_every_page(browser, world):
    html = browser.get("/recent/").content.decode()
    assert '<span class="count" id="count-core">2</span>' in html
    assert '<span class="count" id="count-review">2</span>' in html
    assert '<span class="count" id="count-archive">1</span>' in html


def test_hidden_rows_stay_out_of_other_owners_counts(world, other_owner):
    html = DashboardClient(other_owner).get("/").content.decode()
    assert '<span class="count" id="count-core">0</span>' in html
    assert Memory.objects.filter(owner=other_owner).count() == 0


def test_review_shows_what_compaction_proposes_with_the_memories_in_question(browser, world, owner):
    from memories.models import ReviewProposal

    ids = sorted([str(world.editor.pk), str(world.locked.pk)])
    ReviewProposal.objects.create(
        owner=owner,
        kind="near_duplicate",
        key="near_duplicate:" + ":".join(ids),
        memory_ids=ids,
        score=0.91,
    )
    ReviewProposal.objects.create(
        owner=owner,
        kind="stale",
        key=f"stale:{world.inferred.pk}",
        memory_ids=[str(world.inferred.pk)],
        detail={"after_days": 180},
    )
    html = browser.get("/review/").content.decode()
    section = html[html.index("Proposed by compaction") :]
    assert (
        "Near-duplicates (similarity 0.91)" in section
        and "Not checked for over 180 days" in section
    )
    assert f'id="m-{world.editor.pk}"' in section and f'id="m-{world.inferred.pk}"' in section


def test_review_never_shows_another_owners_proposals(world, owner, other_owner):
    from memories.models import ReviewProposal

    ReviewProposal.objects.create(
        owner=owner,
        kind="stale",
        key=f"stale:{world.inferred.pk}",
        memory_ids=[str(world.inferred.pk)],
        detail={"after_days": 180},
    )
    html = DashboardClient(other_owner).get("/review/").content.decode()
    assert "Proposed by compaction" not in html
