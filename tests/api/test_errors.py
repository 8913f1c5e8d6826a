"""Every failure of the agent API, wherever it is decided, answers in one envelope."""

from __future__ import annotations

import pytest

from tests.api.helpers import ApiClient, assert_envelope, database_dump

pytestmark = pytest.mark.django_db


def test_an_unknown_route_under_the_api_is_an_enveloped_404(api):
    error = assert_envelope(api.get("no-such-thing"), 404, "NOT_FOUND")
    assert error["details"] == []


def test_an_unknown_route_anywhere_under_api_is_enveloped_too(api):
    assert_envelope(api.get("/api/v2/memories"), 404, "NOT_FOUND")
    assert_envelope(api.post("/api/nothing", {}), 404, "NOT_FOUND")


def test_a_trailing_slash_is_not_a_route(api):
    assert_envelope(api.get("capabilities/"), 404, "NOT_FOUND")


def test_a_wrong_method_is_an_enveloped_405_that_names_the_allowed_ones(api):
    response = api.request("delete", "memories")

    assert_envelope(response, 405, "METHOD_NOT_ALLOWED")
    assert response["Allow"] == "POST"


def test_a_wrong_method_on_a_memory_is_a_405(api):
    response = api.request("put", "memories/00000000-0000-0000-0000-000000000000", {})

    assert_envelope(response, 405, "METHOD_NOT_ALLOWED")


def test_unauthenticated_unknown_routes_are_404_not_401(client):
    assert_envelope(ApiClient(client, None).get("nope"), 404, "NOT_FOUND")


# A raw NUL byte is refused before parsing (tests/api/test_nul_characters.py).
@pytest.mark.parametrize("raw", ["{", '{"content": "x", }', "\xff\xfe"])
def test_malformed_json_is_a_400_validation_error(api, raw):
    before = database_dump()

    error = assert_envelope(api.post("memories", raw=raw), 400, "VALIDATION_ERROR")

    assert error["message"] == "The request body is not valid JSON."
    assert error["details"][0]["location"] == "body"
    assert database_dump() == before


def test_a_body_that_is_not_an_object_is_a_400(api):
    error = assert_envelope(api.post("memories", ["a", "list"]), 400, "VALIDATION_ERROR")
    assert error["details"][0]["location"] == "body"


def test_a_body_over_the_upload_limit_is_a_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000

    response = api.post("memories", {"content": "x" * 20_000, "kind": "fact"})

    assert_envelope(response, 413, "PAYLOAD_TOO_LARGE")


def test_validation_errors_name_each_field(api):
    response = api.post("memories", {"content": 5, "kind": "opinion", "colour": "blue"})

    error = assert_envelope(response, 400, "VALIDATION_ERROR")
    by_field = {detail["field"]: detail for detail in error["details"]}
    assert set(by_field) == {"content", "kind", "colour"}
    assert by_field["colour"]["type"] == "extra_forbidden"
    assert by_field["kind"]["location"] == "body"
    assert "preference" in by_field["kind"]["message"]


def test_an_unexpected_exception_is_a_500_without_a_traceback(api, monkeypatch, caplog):
    def explode(**kwargs):
        raise RuntimeError("database on fire at /srv/secret/path")

    monkeypatch.setattr("memories.services.memory_remember", explode)

    response = api.post("memories", {"content": "Anything.", "kind": "fact"})

    error = assert_envelope(response, 500, "INTERNAL_ERROR")
    assert "fire" not in response.content.decode() and "Traceback" not in response.content.decode()
    assert error["details"] == []
    assert "database on fire" in caplog.text  # logged for the operator


def test_a_failure_after_a_write_leaves_no_trace(api, monkeypatch):
    """A service that writes and then fails rolls back: the door adds no transaction of its
    own, so this proves the services' atomicity as seen over HTTP."""
    from memories.services import remember as remember_module

    def record_then_fail(**kwargs):
        raise RuntimeError("after the write")

    monkeypatch.setattr(remember_module, "record_event", record_then_fail)
    before = database_dump()

    assert_envelope(
        api.post("memories", {"content": "Half a write.", "kind": "fact"}), 500, "INTERNAL_ERROR"
    )

    assert database_dump() == before


def test_a_refused_host_header_is_an_enveloped_400(api):
    response = api.get("capabilities", headers={"Host": "evil.example"})

    assert_envelope(response, 400, "VALIDATION_ERROR")


def test_the_owner_api_prefix_is_left_to_its_own_error_handling(client):
    """Requests that match another door's route are not rewritten by the agent API."""
    response = client.get("/admin/nowhere/")
    assert not response.get("Content-Type", "").startswith("application/json")
