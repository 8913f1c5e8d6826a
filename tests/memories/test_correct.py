"""An owner correction is a compare-and-set when the caller says which version it read: the
service checks it, so every door (owner API, dashboard) answers a stale edit the same way."""

from __future__ import annotations

import pytest

from foundation.errors import ErrorCode
from memories.models import Memory
from memories.services import memory_correct
from tests.api.helpers import database_dump
from tests.memories.helpers import raises, remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, owner):
    client.force_login(owner)
    return client


def correct_over_http(client, memory_id, body):
    return client.post(
        f"/api/owner/memories/{memory_id}/correct/", body, content_type="application/json"
    )


@pytest.fixture
def corrected_once(owner_actor):
    """A memory at version 2: its version 1 was corrected (and superseded) since."""
    first = remember(owner_actor, "The api service deploys with Kubernetes.", kind="fact")
    second = memory_correct(
        actor=owner_actor, memory_id=first.id, content="The api service deploys with Nomad."
    )
    return first.id, second


def test_a_stale_expected_version_through_the_owner_api_is_409_and_changes_nothing(
    signed_in, corrected_once
):
    first_id, second = corrected_once
    before = database_dump()
    for memory_id, stale in ((second.pk, 1), (first_id, 1), (second.pk, 3)):
        response = correct_over_http(
            signed_in, memory_id, {"content": "It deploys with Docker.", "expected_version": stale}
        )
        assert response.status_code == 409, response.content
        error = response.json()["error"]
        assert error["code"] == "VERSION_CONFLICT" and error["details"][0]["expected"] == stale
    assert database_dump() == before


def test_the_current_expected_version_through_the_owner_api_writes_the_next_version(
    signed_in, corrected_once
):
    _, second = corrected_once
    response = correct_over_http(
        signed_in, second.pk, {"content": "It deploys with Docker.", "expected_version": 2}
    )
    assert response.status_code == 200, response.content
    assert response.json()["version"] == 3
    assert Memory.objects.get(pk=second.pk).status == "superseded"


def test_without_expected_version_a_correction_is_not_compared(signed_in, corrected_once):
    _, second = corrected_once
    response = correct_over_http(signed_in, second.pk, {"content": "It deploys with Docker."})
    assert response.status_code == 200 and response.json()["version"] == 3


def test_the_service_refuses_a_stale_or_malformed_expected_version(owner_actor, corrected_once):
    first_id, second = corrected_once
    before = database_dump()
    with raises(ErrorCode.VERSION_CONFLICT) as caught:
        memory_correct(actor=owner_actor, memory_id=first_id, content="Docker.", expected_version=1)
    assert caught.value.details[0]["status"] == "superseded"
    for malformed in ("2", -1, True, 2.0):
        with raises(ErrorCode.VALIDATION_ERROR):
            memory_correct(
                actor=owner_actor,
                memory_id=second.pk,
                content="Docker.",
                expected_version=malformed,
            )
    assert database_dump() == before
