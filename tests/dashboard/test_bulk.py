"""Bulk review: the owner selects memories on a list (one, several, the page, or all
matching its filters) and applies one action; each item goes through the card's own
service call, and the answer reports every item. Over htmx the outcome lands in the bar's
status region and the list re-renders itself; without JavaScript the post redirects back
with messages."""

from __future__ import annotations

import json
import uuid

import pytest

from foundation.actors import Actor
from memories.contract import MAX_BULK_ITEMS
from memories.models import Memory
from tests.htmx import counts_after

from .conftest import DashboardClient, imported, remember

pytestmark = pytest.mark.django_db


def bulk(client, list_name, action, ids=(), *, scope="selected", htmx=False, **fields):
    data = {"list": list_name, "action": action, "scope": scope, "ids": [str(i) for i in ids]}
    return client.post("/bulk/", {**data, **fields}, htmx=htmx)


def triggers(response) -> dict:
    return json.loads(response.headers.get("HX-Trigger", "{}"))


@pytest.fixture
def inferred(agent_actor):
    texts = ["The api service deploys on Fridays.", "The api service logs to Loki.",
             "The api service is written in Rust."]  # fmt: skip
    return [remember(agent_actor, text, kind="fact", trust="inferred") for text in texts]


def test_confirming_several_over_htmx_reports_each_and_asks_the_list_to_rerender(browser, inferred):
    response = bulk(browser, "review-inferred", "confirm", [m.pk for m in inferred], htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert "Confirmed: 3 done, 0 refused, 0 not found." in html
    assert "bulk-done-review-inferred" in triggers(response)
    assert counts_after(browser, response)["review"] == 0
    rerendered = browser.hx_get("/review/").content.decode()  # what the list fetches
    assert 'id="bulk-list-review-inferred"' in rerendered
    assert "Nothing awaits confirmation." in rerendered
    assert {m.trust for m in Memory.objects.filter(pk__in=[m.pk for m in inferred])} == {
        "confirmed"
    }


def test_the_review_page_carries_the_bulk_bar_and_a_checkbox_per_card(browser, inferred):
    html = browser.get("/review/").content.decode()
    assert 'id="bulk-review-inferred"' in html and "<legend>" in html
    for memory in inferred:
        assert f'form="bulk-review-inferred" id="bulk-review-inferred-{memory.pk}"' in html
        assert f'<label for="bulk-review-inferred-{memory.pk}">Select</label>' in html
    assert 'hx-trigger="bulk-done-review-inferred from:body"' in html
    assert "Apply to all 3 matching" in html


def test_without_javascript_a_bulk_action_redirects_back_with_its_outcome(browser, inferred):
    ids = [m.pk for m in inferred[:2]]
    response = bulk(browser, "review-inferred", "lock", ids, next="/review/")
    assert response.status_code == 302 and response["Location"] == "/review/"
    page = browser.get("/review/").content.decode()
    assert "Locked: 2 done, 0 refused, 0 not found." in page
    assert Memory.objects.get(pk=ids[0]).trust == "locked"
    assert Memory.objects.get(pk=inferred[2].pk).trust == "inferred"


def test_archive_then_restore_in_bulk(browser, inferred):
    ids = [m.pk for m in inferred]
    bulk(browser, "recent", "archive", ids, htmx=True)
    assert set(Memory.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"archived"}
    archive = browser.get("/archive/").content.decode()
    assert 'id="bulk-archive"' in archive and '<option value="restore">' in archive
    response = bulk(browser, "archive", "restore", ids, htmx=True)
    assert "Restored: 3 done" in response.content.decode()
    assert set(Memory.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"active"}


def test_a_bulk_delete_asks_first_and_deletes_only_when_confirmed(browser, inferred):
    ids = [m.pk for m in inferred[:2]]
    asked = bulk(browser, "search", "delete", ids, htmx=True, filter="")
    html = asked.content.decode()
    assert asked.status_code == 200 and "Delete 2 items" in html
    assert 'name="confirm" value="yes"' in html and html.count('name="ids"') == 2
    assert Memory.objects.filter(pk__in=ids).count() == 2
    done = bulk(browser, "search", "delete", ids, htmx=True, filter="", confirm="yes")
    assert "Deleted: 2 done" in done.content.decode()
    assert not Memory.objects.filter(pk__in=ids).exists()
    assert Memory.objects.filter(pk=inferred[2].pk).exists()


def test_confirming_a_delete_of_all_matching_deletes_what_it_named(browser, inferred, agent_actor):
    asked = bulk(browser, "review-inferred", "delete", scope="matching", htmx=True, filter="")
    html = asked.content.decode()
    assert "Delete 3 items" in html and html.count('name="ids"') == 3
    assert 'name="scope" value="selected"' in html
    later = remember(agent_actor, "The api service caches with Varnish.", kind="fact",
                     trust="inferred")  # fmt: skip
    ids = [part.split('"')[0] for part in html.split('name="ids" value="')[1:]]
    done = bulk(browser, "review-inferred", "delete", ids, htmx=True, confirm="yes")
    assert "Deleted: 3 done" in done.content.decode()
    assert Memory.objects.filter(pk=later.pk).exists()  # written after the question


def test_a_bulk_delete_without_javascript_asks_on_a_page_of_its_own(browser, inferred):
    asked = bulk(browser, "recent", "delete", [inferred[0].pk], next="/recent/")
    assert asked.status_code == 200 and "<html" in asked.content.decode()
    assert "Yes, delete permanently" in asked.content.decode()
    assert Memory.objects.filter(pk=inferred[0].pk).exists()


def test_mixed_results_report_each_item_and_change_only_what_the_services_allow(
    browser, world, owner, other_owner
):
    foreign = remember(Actor.owner(other_owner), "Grace keeps her notes in Markdown.")
    remember(Actor.owner(owner), "Old habit: tabs for indentation.")  # a live twin now exists
    superseded = Memory.objects.get(pk=world.editor.pk)
    Memory.objects.filter(pk=superseded.pk).update(status="superseded")
    ids = [world.archived.pk, superseded.pk, foreign.pk, uuid.uuid4(), "not-a-uuid"]
    response = bulk(browser, "search", "restore", ids, htmx=True, filter="")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Restored: 1 done, 1 refused, 3 not found." in html
    assert "already says the same thing" in html  # the service's own reason
    assert "Old habit: tabs for indentation." in html  # named by its text, not its id
    assert "Grace keeps" not in html  # another owner's memory is only "not found"
    assert Memory.objects.get(pk=world.archived.pk).status == "archived"
    assert Memory.objects.get(pk=superseded.pk).status == "active"
    assert Memory.objects.get(pk=foreign.pk).status == "active"


def test_archiving_a_superseded_memory_is_refused_by_the_service_the_others_go_ahead(
    browser, world, inferred
):
    Memory.objects.filter(pk=world.editor.pk).update(status="superseded")
    ids = [world.editor.pk, inferred[0].pk]
    response = bulk(browser, "search", "archive", ids, next="/search/", filter="")
    assert response.status_code == 302
    page = browser.get("/search/").content.decode()
    assert "Archived: 1 done, 1 refused, 0 not found." in page
    assert "it cannot be archived" in page
    assert Memory.objects.get(pk=inferred[0].pk).status == "archived"


def test_an_empty_selection_says_so_once(browser, inferred):
    response = bulk(browser, "review-inferred", "confirm", [], htmx=True)
    html = response.content.decode()
    assert response.status_code == 400 and html.count("Select at least one item first.") == 1
    assert "bulk-done-review-inferred" not in triggers(response)
    plain = bulk(browser, "review-inferred", "confirm", [], next="/review/")
    assert plain.status_code == 302
    page = browser.get("/review/").content.decode()
    assert page.count("Select at least one item first.") == 1
    assert Memory.objects.filter(trust="inferred").count() == 3


def test_all_matching_when_nothing_matches_says_so(browser, inferred):
    response = bulk(
        browser, "search", "archive", scope="matching", htmx=True, filter="q=no+such+words"
    )
    assert response.status_code == 400
    assert "Nothing matches this list&#x27;s filters now." in response.content.decode()


def test_more_ids_than_the_cap_are_refused_whole(browser, inferred):
    ids = [m.pk for m in inferred] + [uuid.uuid4() for _ in range(MAX_BULK_ITEMS)]
    response = bulk(browser, "review-inferred", "confirm", ids, htmx=True)
    assert response.status_code == 400
    assert f"At most {MAX_BULK_ITEMS} items at a time" in response.content.decode()
    assert Memory.objects.filter(trust="inferred").count() == 3


def test_all_on_the_page_acts_on_the_ids_the_cards_carry(browser, inferred):
    page = browser.get("/review/").content.decode()
    assert page.count('name="page_ids"') == 3
    ids = [m.pk for m in inferred]
    response = bulk(browser, "review-inferred", "confirm", scope="page", htmx=True, page_ids=ids)
    assert "Confirmed: 3 done" in response.content.decode()


def test_all_matching_runs_over_the_filter_on_the_server(browser, inferred, world):
    response = bulk(
        browser,
        "search",
        "archive",
        scope="matching",
        htmx=True,
        filter="q=api+service&trust=inferred",
    )
    html = response.content.decode()
    assert "Archived: 4 done, 0 refused, 0 not found." in html
    assert Memory.objects.filter(content__contains="api service", status="archived").count() == 4
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_all_matching_is_bounded_and_says_how_many_it_left(browser, owner):
    imported(owner, MAX_BULK_ITEMS + 3)
    search = browser.get("/search/", {"q": "Imported observation"}).content.decode()
    assert f"Apply to all {MAX_BULK_ITEMS + 3} matching" in search
    response = bulk(
        browser, "search", "lock", scope="matching", htmx=True, filter="q=Imported+observation"
    )
    html = response.content.decode()
    assert f"Locked: {MAX_BULK_ITEMS} done" in html
    assert f"newest {MAX_BULK_ITEMS} of the {MAX_BULK_ITEMS + 3} matching" in html
    assert Memory.objects.filter(trust="locked").count() == MAX_BULK_ITEMS


def test_a_list_or_action_not_offered_is_refused(browser, inferred):
    ids = [inferred[0].pk]
    assert bulk(browser, "everything", "confirm", ids, htmx=True).status_code == 400
    refused = bulk(browser, "archive", "confirm", ids, htmx=True)  # archive offers restore
    assert refused.status_code == 400
    assert "Choose one of the actions this list offers." in refused.content.decode()
    assert Memory.objects.get(pk=inferred[0].pk).trust == "inferred"


def test_a_bulk_post_without_the_csrf_token_is_refused(owner, inferred):
    client = DashboardClient(owner)
    response = client.post(
        "/bulk/", {"list": "recent", "action": "archive", "ids": [str(inferred[0].pk)]},
        headers={"X-CSRFToken": "wrong"},
    )  # fmt: skip
    assert response.status_code == 403
    assert Memory.objects.get(pk=inferred[0].pk).status == "active"


def test_signed_out_a_bulk_post_changes_nothing(anonymous, inferred):
    response = bulk(anonymous, "recent", "archive", [inferred[0].pk])
    assert response.status_code == 302 and "/signin/" in response["Location"]
    assert Memory.objects.get(pk=inferred[0].pk).status == "active"


def test_a_card_rerendered_after_its_own_action_keeps_its_checkbox(browser, inferred):
    memory = inferred[0]
    response = browser.post(
        f"/m/{memory.pk}/lock/", {"bulk_form": "bulk-review-inferred"}, htmx=True
    )
    assert f'id="bulk-review-inferred-{memory.pk}"' in response.content.decode()
    forged = browser.post(f"/m/{memory.pk}/unlock/", {"bulk_form": '"><script>'}, htmx=True)
    assert 'type="checkbox"' not in forged.content.decode()


def test_every_memory_list_offers_bulk_review(browser, world):
    for path, name in [("/", "core"), ("/recent/", "recent"), ("/archive/", "archive"),
                       ("/projects/", "projects"), ("/search/", "search")]:  # fmt: skip
        html = browser.get(path).content.decode()
        assert f'id="bulk-{name}"' in html, path
        assert f'id="bulk-status-{name}"' in html, path


def test_the_bulk_bar_and_its_outcome_speak_chinese(browser, inferred):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/review/"})
    page = browser.get("/review/").content.decode()
    assert "批量操作" in page and "应用于所选" in page
    response = bulk(browser, "review-inferred", "confirm", [inferred[0].pk], htmx=True)
    assert "已确认：1 项完成，0 项被拒绝，0 项未找到。" in response.content.decode()
    empty = bulk(browser, "review-inferred", "confirm", [], htmx=True)
    assert "请先选择至少一项。" in empty.content.decode()


def test_all_matching_on_projects_runs_over_the_project_shown(browser, world, agent_actor):
    other = remember(agent_actor, "The web app is built with Vite.", kind="fact",
                     scope_type="project", scope_key="github:ada/web")  # fmt: skip
    page = browser.get("/projects/").content.decode()  # the busiest: github:ada/api
    assert 'name="filter" value="project=github%3Aada%2Fapi"' in page
    response = bulk(browser, "projects", "archive", scope="matching", htmx=True,
                    filter="project=github%3Aada%2Fapi")  # fmt: skip
    assert "Archived: 1 done" in response.content.decode()
    assert Memory.objects.get(pk=world.inferred.pk).status == "archived"
    assert Memory.objects.get(pk=other.pk).status == "active"
