"""One signed cursor on every door (foundation.paging): the owner API's lists, the agent
API's history and recall, and the dashboard's tabs refuse a tampered, hand-built, foreign
or malformed cursor the same way (VALIDATION_ERROR on `cursor`, 400), and their pages
still walk every row once."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from django.test import Client

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from foundation.paging import cursor_decode, cursor_encode, query_key
from handoff.services import handoff_create
from memories.models import Memory
from memories.services import memory_lock
from tests.api.helpers import ApiClient, assert_envelope
from tests.memories.helpers import remember

from .conftest import error_of

pytestmark = pytest.mark.django_db


def tampered(cursor: str) -> str:
    """The same cursor with one character of its signed payload changed."""
    index = len(cursor) // 3
    return cursor[:index] + ("A" if cursor[index] != "A" else "B") + cursor[index + 1 :]


def unsigned(position) -> str:
    """What a client could build by hand: base64 JSON of a plausible position."""
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode().rstrip("=")


@pytest.fixture
def store(owner, agent_actor):
    me = Actor.owner(owner)
    memories = [
        remember(me, content=f"Fact {n}: the build cache lives in bucket {n}.", kind="fact")
        for n in range(5)
    ]
    for n in range(3):
        handoff_create(actor=agent_actor, task_id=f"task-{n}", summary=f"Step {n} done.")
    return memories


@pytest.fixture
def agent_api(make_token):
    _, raw = make_token("claude-code")
    return ApiClient(Client(), raw)


@pytest.fixture
def dashboard(owner) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def test_the_codec_refuses_tampered_foreign_and_malformed_cursors():
    cursor = cursor_encode(["2026-01-01T00:00:00+00:00", "7"], query=query_key("a", 1))
    assert cursor_decode(cursor, query=query_key("a", 1)) == ["2026-01-01T00:00:00+00:00", "7"]
    assert all(c.isalnum() or c in "-_." for c in cursor)  # needs no escaping in a URL
    for bad, query in (
        (tampered(cursor), query_key("a", 1)),
        (cursor, query_key("a", 2)),
        ("not a cursor", query_key("a", 1)),
        (unsigned(["2026-01-01T00:00:00+00:00", "7"]), query_key("a", 1)),
        ("x" * 5000, query_key("a", 1)),
        (None, query_key("a", 1)),
    ):
        with pytest.raises(ServiceError) as caught:
            cursor_decode(bad, query=query)
        assert caught.value.code == ErrorCode.VALIDATION_ERROR
        assert caught.value.details[0]["field"] == "cursor"


@pytest.mark.parametrize("path", ["/memories/", "/handoffs/", "/tokens/", "/candidates/"])
def test_every_owner_list_refuses_a_tampered_or_malformed_cursor(api, store, path):
    for cursor in ("%%%", "junk", tampered(cursor_encode(["x", "1"], query="q"))):
        error = error_of(api.get(path, {"cursor": cursor}), 400, "VALIDATION_ERROR")
        assert error["details"][0]["field"] == "cursor"


def test_an_owner_list_refuses_a_hand_built_position(api, store):
    # Before cursors were signed, this base64 JSON (with the digest of "no filters") paged.
    newest = Memory.objects.get(pk=store[-1].id)
    digest = hashlib.sha256(json.dumps([]).encode()).hexdigest()[:16]
    forged = unsigned({"t": newest.updated_at.isoformat(), "i": str(newest.pk), "q": digest})
    error_of(api.get("/memories/", {"cursor": forged}), 400, "VALIDATION_ERROR")


def test_a_cursor_of_one_owner_list_is_refused_by_another(api, store, make_token):
    make_token("codex")
    make_token("cursor")
    memories = api.get("/memories/", {"limit": 1}).json()["next_cursor"]
    tokens = api.get("/tokens/", {"limit": 1}).json()["next_cursor"]
    assert memories and tokens
    error_of(api.get("/handoffs/", {"cursor": memories}), 400, "VALIDATION_ERROR")
    error_of(api.get("/memories/", {"cursor": tokens}), 400, "VALIDATION_ERROR")


def test_owner_pages_still_walk_every_row_once(api, store):
    seen, cursor = [], None
    while True:
        body = api.get("/handoffs/", {"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
        seen += [capsule["task_id"] for capsule in body["results"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == ["task-2", "task-1", "task-0"]


def test_the_agent_apis_history_refuses_a_hand_built_or_foreign_cursor(
    agent_api, owner, agent_actor
):
    memory = remember(agent_actor, content="The staging database is db-2.", kind="fact")
    other = remember(agent_actor, content="The release train leaves on Tuesdays.", kind="fact")
    memory_lock(actor=Actor.owner(owner), memory_id=other.id)
    foreign = agent_api.get(f"memories/{other.id}/history", {"limit": 1}).json()["next_cursor"]
    assert foreign
    for cursor in (unsigned({"m": str(memory.id), "e": 10**9}), foreign, tampered(foreign)):
        response = agent_api.get(f"memories/{memory.id}/history", {"cursor": cursor})
        assert assert_envelope(response, 400, "VALIDATION_ERROR")["details"][0]["field"] == "cursor"


def test_the_agent_apis_recall_refuses_a_tampered_or_foreign_cursor(agent_api, agent_actor):
    for n in range(6):
        remember(agent_actor, content=f"Deploy runbook step {n}: check the dashboard.", kind="fact")
    first = agent_api.get("recall", {"query": "deploy runbook", "limit": 2}).json()
    cursor = first["next_cursor"]
    assert cursor
    for query, bad in (("deploy runbook", tampered(cursor)), ("another question", cursor)):
        response = agent_api.get("recall", {"query": query, "cursor": bad})
        assert_envelope(response, 400, "VALIDATION_ERROR")
    rest = agent_api.get("recall", {"query": "deploy runbook", "limit": 2, "cursor": cursor})
    assert rest.status_code == 200 and rest.json()["memories"]


@pytest.mark.parametrize("path", ["/", "/recent/", "/archive/", "/activity/", "/handoffs/"])
def test_every_dashboard_list_refuses_a_bad_cursor_with_a_400(dashboard, store, path):
    for cursor in ("!!not-a-cursor", tampered(cursor_encode(["x", "1"], query="q"))):
        page = dashboard.get(path, {"cursor": cursor})
        assert page.status_code == 400 and b"cursor is not valid" in page.content
        assert b"<html" in page.content  # a page of its own, with the tabs
        fragment = dashboard.get(
            path, {"cursor": cursor, "fragment": "page"}, headers={"HX-Request": "true"}
        )
        assert fragment.status_code == 400 and b"<html" not in fragment.content
        assert b'data-code="VALIDATION_ERROR"' in fragment.content


def test_a_dashboard_cursor_of_one_tab_or_filter_is_refused_by_another(dashboard, owner, store):
    me = Actor.owner(owner)
    for n in range(30):
        remember(me, content=f"Global fact number {n} about the build.", kind="fact")
    first = dashboard.get("/").content.decode()
    cursor = first.split("cursor=")[1].split("&")[0].split('"')[0]
    assert dashboard.get("/", {"cursor": cursor}).status_code == 200
    assert dashboard.get("/recent/", {"cursor": cursor}).status_code == 400
    activity = dashboard.get("/activity/").content.decode()
    events = activity.split("cursor=")[1].split("&")[0].split('"')[0]
    assert dashboard.get("/activity/", {"cursor": events}).status_code == 200
    refused = dashboard.get("/activity/", {"cursor": events, "event_type": "created"})
    assert refused.status_code == 400 and b"another query" in refused.content
    # And a dashboard cursor means nothing to the owner API (nor the reverse).
    api = Client()
    api.force_login(owner)
    assert api.get("/api/owner/memories/", {"cursor": cursor}).status_code == 400
