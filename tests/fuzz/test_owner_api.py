"""Fuzzing the owner API: every route, with generated ids, query parameters and bodies
(JSON of every shape, and bytes that are not JSON), signed in as an owner. No answer is a
5xx and every error is the envelope. Routes are read from the URL configuration, so a new
endpoint is fuzzed without being listed here. Bounded example counts."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from continuity import owner_urls
from foundation.actors import Actor
from tests.factories import MemoryFactory
from tests.fuzz.helpers import assert_enveloped

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

FIELDS = ["content", "kind", "type", "trust", "visibility", "scope_type", "scope_key", "key", "value", "tags",
          "reason", "superseded_by", "relation", "to_id", "uri", "shared", "ids", "action", "pattern",
          "window", "value", "name", "agent_name", "scopes", "allowed_projects", "expires_in_days",
          "replace", "memory_id", "purpose", "status"]  # fmt: skip
texts = st.text(max_size=60) | st.sampled_from(["", "fact", "confirmed", "private", "project", "global", "x" * 5000,
                                                 "00000000-0000-0000-0000-000000000000", "缓存", "-1", "1e309"])  # fmt: skip
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS), children, max_size=4)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(st.sampled_from(FIELDS), values, max_size=6)


def routes():
    """(method, path template with {pk}) for every owner API route."""
    found = []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
                continue
            actions = getattr(pattern.callback, "actions", None)
            raw = prefix + str(pattern.pattern)
            if pattern.name in (None, "login", "logout", "api-root"):
                continue
            path = (
                re.sub(r"\(\?P<pk>[^)]*\)", "{pk}", raw)
                .replace("^", "")
                .replace("/?$", "/")
                .replace("$", "")
            )
            methods = list(actions) if actions else ["get", "post"]
            found.extend((method, "/api/owner/" + path) for method in methods)

    walk(owner_urls.urlpatterns)
    return found


ROUTES = routes()


@pytest.fixture
def signed_in(owner, other_owner):
    me = Actor.owner(owner)
    memories = MemoryFactory.create_batch(3, actor=me, kind="fact")
    memories.append(MemoryFactory(actor=Actor.owner(other_owner), content="Bob's memory"))
    ids = [str(memory.id) for memory in memories]
    client = Client()
    client.force_login(owner)
    return client, ids


def test_the_table_covers_the_owner_api():
    paths = {path for _, path in ROUTES}
    assert {"/api/owner/memories/", "/api/owner/memories/{pk}/correct/", "/api/owner/tokens/",
            "/api/owner/candidates/{pk}/approve/", "/api/owner/retention/{pk}/"} <= paths  # fmt: skip
    assert len(ROUTES) >= 35


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_owner_route_answers_generated_input_without_a_server_error(
    signed_in, method, path, data
):
    client, ids = signed_in
    pk = data.draw(st.sampled_from(ids) | st.sampled_from(["1", "0", "999999999", "retention_events_days",
                                                              "events", "not-an-id"]) | texts, label="pk")  # fmt: skip
    url = path.replace(
        "{pk}", str(pk).replace("/", "%2F").replace("?", "%3F").replace("#", "%23") or "x"
    )
    params = data.draw(
        st.dictionaries(
            st.sampled_from(FIELDS + ["page", "cursor", "q", "limit"]), texts, max_size=3
        )
    )
    if method == "get":
        response = client.get(url, params)
    elif data.draw(st.booleans(), label="json"):
        body = json.dumps(data.draw(bodies | values, label="body"))
        response = client.generic(method.upper(), url, body, content_type="application/json")
    else:
        body = data.draw(st.binary(max_size=200), label="bytes")
        response = client.generic(method.upper(), url, body, content_type="application/json")
    assert response.status_code < 500, (method, url, response.status_code, response.content[:300])
    if response.get("Content-Type", "").startswith("application/json"):
        assert_enveloped(response)


@pytest.mark.parametrize(
    ("method", "path"),
    [("delete", "/api/owner/rejections/¹/"), ("delete", "/api/owner/never-remember/²/"),
     ("get", "/api/owner/memories/?limit=¹"), ("get", "/api/owner/tokens/?limit=٣")],
)  # fmt: skip
def test_digits_that_are_not_ascii_are_refused_not_crashed_on(signed_in, method, path):
    client, _ = signed_in
    response = getattr(client, method)(path)
    assert response.status_code in (400, 404), response.content
    assert_enveloped(response)
