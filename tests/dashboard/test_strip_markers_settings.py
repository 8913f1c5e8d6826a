"""The owner's capture strip markers on the Settings page and the owner API: each owner
adds and removes their own pairs; bad input is refused with a clear message (the shared
envelope on the API) and changes nothing."""

from __future__ import annotations

import pytest

from capture.models import StripMarker
from tests.owner_api.conftest import OwnerClient, error_of

pytestmark = pytest.mark.django_db
API = "/strip-markers/"


def pairs(user) -> list[tuple[str, str]]:
    return list(StripMarker.objects.filter(owner=user).values_list("start", "end"))


def test_the_page_shows_the_environments_pairs_and_the_owners_own(browser, owner, settings):
    settings.CONTINUITY_CAPTURE_STRIP_MARKERS = [("<memory>", "</memory>")]
    StripMarker.objects.create(owner=owner, start="<我的记忆>", end="</我的记忆>")
    html = browser.get("/settings/").content.decode()
    assert "<code>&lt;memory&gt;</code>" in html
    assert "<code>&lt;我的记忆&gt;</code>…<code>&lt;/我的记忆&gt;</code>" in html


@pytest.mark.parametrize("htmx", [False, True])
def test_an_owner_adds_a_pair_and_removes_it(browser, owner, htmx):
    response = browser.post(
        "/settings/markers/", {"start": " <cursor_rules> ", "end": "</cursor_rules>"}, htmx=htmx
    )
    assert response.status_code == (200 if htmx else 302)
    assert pairs(owner) == [("<cursor_rules>", "</cursor_rules>")]
    if htmx:
        assert "Strip marker saved." in response.content.decode()
        assert "<h1>" not in response.content.decode()  # only the panel

    marker = StripMarker.objects.get(owner=owner)
    response = browser.post(f"/settings/markers/{marker.pk}/delete/", htmx=htmx)
    assert response.status_code == (200 if htmx else 302)
    assert pairs(owner) == []


def test_adding_the_same_pair_twice_keeps_one(browser, owner):
    for _ in range(2):
        browser.post("/settings/markers/", {"start": "<m>", "end": "</m>"})
    assert pairs(owner) == [("<m>", "</m>")]


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("", "</m>", "The start marker must not be empty."),
        ("<m>", "   ", "The end marker must not be empty."),
        ("<" + "m" * 100 + ">", "</m>", "The start marker must be at most 100 characters."),
        ("<m>", "</m\n>", "The end marker must be one line without surrounding spaces."),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_bad_pair_is_refused_with_its_reason_and_changes_nothing(
    browser, owner, start, end, message, htmx
):
    StripMarker.objects.create(owner=owner, start="<kept>", end="</kept>")
    response = browser.post("/settings/markers/", {"start": start, "end": end}, htmx=htmx)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert pairs(owner) == [("<kept>", "</kept>")]


def test_the_list_is_bounded(browser, owner):
    StripMarker.objects.bulk_create(
        StripMarker(owner=owner, start=f"<t{i}>", end=f"</t{i}>") for i in range(50)
    )
    response = browser.post("/settings/markers/", {"start": "<one-more>", "end": "</one-more>"})
    assert response.status_code == 400
    assert "At most 50 strip markers." in response.content.decode()
    assert StripMarker.objects.filter(owner=owner).count() == 50


def test_an_owner_cannot_remove_another_owners_marker(browser, other_owner):
    theirs = StripMarker.objects.create(owner=other_owner, start="<x>", end="</x>")
    assert browser.post(f"/settings/markers/{theirs.pk}/delete/").status_code == 404
    assert pairs(other_owner) == [("<x>", "</x>")]


def test_signed_out_visitors_cannot_add_markers(anonymous):
    response = anonymous.post("/settings/markers/", {"start": "<m>", "end": "</m>"})
    assert response.status_code == 302 and "/signin/" in response["Location"]
    assert not StripMarker.objects.exists()


def test_the_owner_api_adds_lists_and_deletes_the_owners_pairs(owner, other_owner):
    api = OwnerClient(owner)
    StripMarker.objects.create(owner=other_owner, start="<x>", end="</x>")
    created = api.post(API, {"start": "<用户记忆>", "end": "</用户记忆>"})
    assert created.status_code == 201, created.content
    listed = api.get(API).json()["results"]
    assert [(row["start"], row["end"]) for row in listed] == [("<用户记忆>", "</用户记忆>")]
    assert api.delete(f"{API}{created.json()['id']}/").status_code == 204
    assert pairs(owner) == []


@pytest.mark.parametrize(
    "body",
    [
        {"start": "", "end": "</m>"},
        {"start": "<m>"},
        {"start": 7, "end": "</m>"},
        {"start": "<m>", "end": "x" * 101},
        {"start": "<m>", "end": "</m>", "colour": "red"},
    ],
)
def test_the_owner_api_refuses_a_bad_pair_in_the_envelope_and_changes_nothing(owner, body):
    response = OwnerClient(owner).post(API, body)
    error_of(response, 400, "VALIDATION_ERROR")
    assert not StripMarker.objects.exists()


def test_the_owner_api_answers_404_for_another_owners_marker(owner, other_owner):
    theirs = StripMarker.objects.create(owner=other_owner, start="<x>", end="</x>")
    error_of(OwnerClient(owner).delete(f"{API}{theirs.pk}/"), 404, "NOT_FOUND")
    error_of(OwnerClient(owner).delete(f"{API}nope/"), 404, "NOT_FOUND")
    assert pairs(other_owner) == [("<x>", "</x>")]


def test_the_panel_speaks_chinese_when_the_owner_does(browser):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/settings/"})
    html = browser.get("/settings/").content.decode()
    assert "采集剥离标记" in html and "起始标记" in html and "结束标记" in html
