"""A secret sent as a field or parameter name is refused without being echoed in the error
(and so never lands in a client's or proxy's logs through us)."""

from __future__ import annotations

import json

import pytest

from foundation.errors import HIDDEN_NAME, shown_name
from tests.owner_api.conftest import API, OwnerClient

pytestmark = pytest.mark.django_db

SECRET = "ghp_" + "Q7x2Lm9Z" * 4 + "ab12"


@pytest.fixture
def headers(make_token):
    return {"Authorization": f"Bearer {make_token('claude-code')[1]}"}


def test_our_own_names_are_repeated_and_others_are_not():
    assert shown_name("retrieval_hints.3") == "retrieval_hints.3"
    assert shown_name(SECRET) == HIDDEN_NAME
    assert shown_name("AKIAIOSFODNN7EXAMPLE") == HIDDEN_NAME


def test_an_unknown_body_field_named_like_a_secret_is_not_echoed(client, headers):
    body = {"content": "Use uv.", "kind": "fact", SECRET: 1}
    response = client.post(
        "/api/v1/memories", json.dumps(body), content_type="application/json", headers=headers
    )
    assert response.status_code == 400
    assert SECRET not in response.content.decode()


def test_an_unknown_query_parameter_named_like_a_secret_is_not_echoed(client, headers):
    response = client.get(f"/api/v1/recall?query=uv&{SECRET}=1", headers=headers)
    assert response.status_code == 400
    assert SECRET not in response.content.decode()


def test_a_guarded_key_named_like_a_secret_is_not_echoed(client, headers):
    body = {"content": "Use uv.", "kind": "fact", "value": {SECRET: "\ud800"}}
    response = client.post(
        "/api/v1/memories", json.dumps(body), content_type="application/json", headers=headers
    )
    assert response.status_code == 400
    assert SECRET not in response.content.decode()


def test_the_owner_api_does_not_echo_it_either(owner):
    api = OwnerClient(owner)
    response = api.django.post(
        API + "/memories/", json.dumps({"content": "Use uv.", "kind": "fact", SECRET: 1}),
        content_type="application/json", HTTP_X_CSRFTOKEN=api.csrf_token,
    )  # fmt: skip
    assert response.status_code == 400
    assert SECRET not in response.content.decode()
    response = api.django.get(API + f"/memories/?{SECRET}=1")
    assert response.status_code == 400
    assert SECRET not in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_an_mcp_argument_named_like_a_secret_is_not_echoed(mcp_as):
    result = mcp_as("claude-code").call("memory_recall", {"query": "uv", SECRET: 1})
    assert result.is_error
    assert SECRET not in json.dumps(result.structured_content)
    assert all(SECRET not in block.text for block in result.content)
