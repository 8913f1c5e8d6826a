"""Recall, context, bootstrap and multi-step query over HTTP: the wire format and the scope
rules the agent sees; ranking itself is tested in tests/retrieval."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.services import memory_remember
from tests.api.helpers import assert_envelope

pytestmark = pytest.mark.django_db
PROJECT = "github:acme/api"


@pytest.fixture
def store(owner):
    me = Actor.owner(owner)

    def add(content, kind="fact", **fields):
        return memory_remember(actor=me, content=content, kind=kind, **fields).id

    return {
        "uv": add("Use uv to manage Python environments", "preference", tags=["python"]),
        "lint": add(
            "CI runs make lint before every merge",
            "constraint",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "db": add(
            "The API stores its data in PostgreSQL 16",
            "decision",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "web": add(
            "The web app lints with eslint",
            "constraint",
            scope_type="project",
            scope_key="github:acme/web",
        ),
        "zh": add("提交信息的标题要简短", "preference"),
    }


def test_recall_by_get_returns_ranked_memories_with_their_channels(api, store):
    response = api.get("recall", {"query": "python environments"})

    assert response.status_code == 200
    body = response.json()
    assert body["memories"][0]["id"] == store["uv"]
    assert body["memories"][0]["channels"] and body["memories"][0]["score"] > 0
    assert body["no_confident_match"] is False
    assert isinstance(body["retrieval"], dict)


def test_recall_by_get_takes_repeated_alt_queries_and_kinds(api, store):
    response = api.client.get(
        "/api/v1/recall?query=zzz+qqq&alt_queries=lint+merge&alt_queries=xyz&kinds=constraint&kinds=decision"
        f"&project_key={PROJECT}",
        headers=api.headers,
    )

    assert response.status_code == 200
    ids = [memory["id"] for memory in response.json()["memories"]]
    assert store["lint"] in ids
    assert store["uv"] not in ids  # a preference, filtered out by kinds
    assert store["web"] not in ids  # another project never leaks in


def test_recall_by_post_answers_like_get(api, store):
    by_get = api.get("recall", {"query": "python environments", "limit": 2}).json()
    by_post = api.post("recall", {"query": "python environments", "limit": 2}).json()

    assert [m["id"] for m in by_post["memories"]] == [m["id"] for m in by_get["memories"]]


def test_recall_pages_with_its_cursor(api, store):
    first = api.post(
        "recall",
        {
            "query": "the",
            "alt_queries": ["CI lint", "API data", "uv"],
            "project_key": PROJECT,
            "limit": 1,
        },
    ).json()
    assert first["next_cursor"] is not None, "the store holds several matching memories"

    second = api.post(
        "recall",
        {
            "query": "the",
            "alt_queries": ["CI lint", "API data", "uv"],
            "project_key": PROJECT,
            "limit": 1,
            "cursor": first["next_cursor"],
        },
    ).json()

    assert second["memories"] and second["memories"][0]["id"] != first["memories"][0]["id"]


def test_recall_says_when_nothing_matches(api, store):
    body = api.get("recall", {"query": "kubernetes helm charts"}).json()

    assert body["no_confident_match"] is True


def test_a_project_restricted_token_cannot_recall_another_project(api_as, store):
    restricted = api_as("codex", allowed_projects=[PROJECT])

    assert restricted.get("recall", {"query": "lint", "project_key": PROJECT}).status_code == 200
    assert_envelope(
        restricted.get("recall", {"query": "lint", "project_key": "github:acme/web"}),
        403,
        "FORBIDDEN",
    )


def test_context_fits_whole_memories_into_the_budget(api, store):
    response = api.post(
        "context",
        {"query": "lint merge", "project_key": PROJECT, "purpose": "coding", "token_budget": 200},
    )

    assert response.status_code == 200
    body = response.json()
    assert "CI runs make lint" in body["context"] and body["items"][0]["id"] == store["lint"]
    assert body["budget"]["token_budget"] == 200 and body["budget"]["used"] <= 200
    assert {"context", "items", "omitted", "budget", "retrieval", "no_confident_match"} == set(body)


def test_context_is_byte_stable(api, store):
    payload = {"query": "lint merge", "project_key": PROJECT}

    assert api.post("context", payload).content == api.post("context", payload).content


def test_bootstrap_gives_the_session_start_context(api, store):
    response = api.get("bootstrap", {"project_key": PROJECT, "token_budget": 400})

    assert response.status_code == 200
    body = response.json()
    assert "CI runs make lint" in body["context"]
    assert "eslint" not in body["context"]
    assert body["budget"]["token_budget"] == 400
    assert {item["id"] for item in body["items"]} >= {store["lint"]}


def test_bootstrap_without_a_project_is_global_only(api, store):
    body = api.get("bootstrap").json()

    assert "make lint" not in body["context"] and "Use uv" in body["context"]


def test_multi_step_query_answers_each_part(api, store):
    response = api.post(
        "query",
        {
            "query": "Which Python tool do we use and which database does the API use?",
            "project_key": PROJECT,
        },
    )

    assert response.status_code == 200
    body = response.json()
    assert body["sufficiency"] in ("sufficient", "partial", "insufficient")
    assert len(body["steps"]) >= 2
    found = {item["id"] for item in body["evidence"]}
    assert store["db"] in found


def test_multi_step_query_takes_explicit_subqueries(api, store):
    body = api.post(
        "query",
        {
            "query": "setup",
            "subqueries": ["python environments", "CI lint"],
            "project_key": PROJECT,
            "max_steps": 2,
        },
    ).json()

    assert [step["query"] for step in body["steps"]] == ["python environments", "CI lint"]
