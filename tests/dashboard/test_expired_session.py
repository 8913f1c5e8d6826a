"""An expired session (or cleared cookies) never pastes the sign-in page into a card: htmx is
told to load it as a page (`HX-Redirect`), a plain post is redirected to it, and after
signing in the owner is back on the page they were on. `next` is only ever a path on this
site."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from memories.models import Memory

from .conftest import DashboardClient

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
PAGE = "/search/?q=editor&status=active"


def _next_of(url: str) -> str:
    target = urlsplit(url)
    assert target.path == "/signin/", url
    return parse_qs(target.query).get("next", [""])[0]


def _sign_in(client, next_url: str):
    return client.post("/signin/", {"username": "ada", "password": PASSWORD, "next": next_url})


def test_an_htmx_action_is_sent_to_sign_in_and_back_to_its_page(anonymous, world):
    response = anonymous.post(
        f"/m/{world.inferred.pk}/confirm/", htmx=True,
        headers={"HX-Current-URL": f"http://testserver{PAGE}"},
    )  # fmt: skip
    assert response.status_code == 200 and response.content == b""
    assert _next_of(response["HX-Redirect"]) == PAGE
    assert _sign_in(anonymous, PAGE)["Location"] == PAGE
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"  # nothing was done


def test_an_htmx_read_is_sent_to_sign_in_too(anonymous, world):
    response = anonymous.hx_get(
        "/recent/?fragment=page&cursor=x", headers={"HX-Current-URL": "http://testserver/recent/"}
    )
    assert "<html" not in response.content.decode()
    assert _next_of(response["HX-Redirect"]) == "/recent/"


def test_htmx_from_another_origin_returns_to_the_first_page(anonymous, world):
    response = anonymous.post(
        f"/m/{world.inferred.pk}/confirm/", htmx=True,
        headers={"HX-Current-URL": "https://evil.example/search/"},
    )  # fmt: skip
    assert _next_of(response["HX-Redirect"]) == "/"


def test_a_plain_post_returns_to_the_page_it_came_from_not_to_the_action(anonymous, world):
    response = anonymous.post(f"/m/{world.editor.pk}/archive/", {"next": PAGE})
    assert response.status_code == 302 and "HX-Redirect" not in response
    assert _next_of(response["Location"]) == PAGE
    form = anonymous.get(response["Location"]).content.decode()
    assert 'name="next" value="/search/?q=editor&amp;status=active"' in form
    assert _sign_in(anonymous, PAGE)["Location"] == PAGE
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_a_plain_post_from_a_cards_own_page_returns_to_that_page(anonymous, world):
    card_page = f"/m/{world.editor.pk}/?next=/recent/"
    response = anonymous.post(
        f"/m/{world.editor.pk}/archive/", {"next": "/recent/"},
        headers={"Referer": f"http://testserver{card_page}"},
    )  # fmt: skip
    assert _next_of(response["Location"]) == card_page


def test_a_plain_post_without_next_returns_to_the_referring_page(anonymous, world):
    response = anonymous.post(
        f"/m/{world.editor.pk}/archive/", headers={"Referer": "http://testserver/review/"}
    )
    assert _next_of(response["Location"]) == "/review/"


@pytest.mark.parametrize(
    "fields, referer",
    [
        ({"next": "https://evil.example/"}, ""),
        ({"next": "//evil.example/path"}, ""),
        ({}, "https://evil.example/review/"),
        ({"next": "javascript:alert(1)"}, "http://evil.example/"),
    ],
)
def test_a_plain_post_never_names_another_site(anonymous, world, fields, referer):
    headers = {"Referer": referer} if referer else {}
    response = anonymous.post(f"/m/{world.editor.pk}/archive/", fields, headers=headers)
    assert _next_of(response["Location"]) == "/"


@pytest.mark.parametrize("foreign", ["https://evil.example/", "//evil.example/x"])
def test_sign_in_refuses_a_next_on_another_site(anonymous, owner, foreign):
    form = anonymous.get("/signin/", {"next": foreign}).content.decode()
    assert 'name="next" value=""' in form
    assert _sign_in(anonymous, foreign)["Location"] == "/"


def test_a_read_of_a_page_keeps_its_own_address_as_next(anonymous):
    response = anonymous.get(PAGE)
    assert _next_of(response["Location"]) == PAGE


def test_cleared_cookies_under_htmx_send_the_browser_to_sign_in(world):
    # No CSRF cookie either: the token the page carried cannot be checked any more.
    bare = DashboardClient()
    token = bare.cookies["csrftoken"].value  # what the page's hx-headers still send
    bare.cookies.clear()
    response = bare.post(
        f"/m/{world.inferred.pk}/confirm/", htmx=True,
        headers={"X-CSRFToken": token, "HX-Current-URL": "http://testserver/review/"},
    )  # fmt: skip
    assert response.status_code == 200 and response.content == b""
    assert _next_of(response["HX-Redirect"]) == "/review/"
    assert Memory.objects.get(pk=world.inferred.pk).trust == "inferred"


def test_cleared_cookies_on_a_plain_post_send_the_browser_to_sign_in(world):
    bare = DashboardClient()
    bare.cookies.clear()
    response = bare.post(f"/m/{world.editor.pk}/archive/", {"next": "/recent/"})
    assert response.status_code == 302 and _next_of(response["Location"]) == "/recent/"
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_a_page_older_than_the_last_sign_in_says_so_in_place(owner, world):
    client = DashboardClient(owner)
    stale = client.cookies["csrftoken"].value
    client.force_login(owner)  # a new sign-in elsewhere rotates the token
    client.cookies["csrftoken"] = "x" * 32
    response = client.post(
        f"/m/{world.editor.pk}/archive/", htmx=True,
        headers={"X-CSRFToken": stale, "HX-Current-URL": "http://testserver/recent/"},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 403 and "<html" not in html
    assert 'role="alert"' in html
    assert "opened before you last signed in" in html and 'href="/recent/"' in html
    response = client.post(f"/m/{world.editor.pk}/archive/", {"next": "/recent/"},
                           headers={"X-CSRFToken": stale})  # fmt: skip
    assert response.status_code == 403 and "<html" in response.content.decode()
    assert Memory.objects.get(pk=world.editor.pk).status == "active"


def test_the_out_of_date_page_reads_in_chinese(owner, world):
    client = DashboardClient(owner)
    stale = client.cookies["csrftoken"].value
    client.cookies["csrftoken"] = "x" * 32
    response = client.post(
        f"/m/{world.editor.pk}/archive/", {"next": "/recent/"},
        headers={"X-CSRFToken": stale, "Accept-Language": "zh-hans"},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 403 and "此页面已过期" in html
    assert "其中的表单已失效" in html and "重新加载本页" in html
