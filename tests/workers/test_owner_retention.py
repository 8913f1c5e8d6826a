"""/api/owner/retention/: the instance owner reads and changes retention windows."""

from __future__ import annotations

from datetime import timedelta

import pytest

from foundation.models import RetentionOverride
from foundation.tasks import retention_cleanup
from tests.owner_api.conftest import OwnerClient
from tests.workers.helpers import idempotency_records

pytestmark = pytest.mark.django_db


@pytest.fixture
def instance_owner(owner):
    owner.is_superuser = True
    owner.save(update_fields=["is_superuser"])
    return owner


def test_the_owner_sees_every_window_and_what_recent_cleanups_removed(instance_owner):
    idempotency_records(instance_owner, 3, age=timedelta(days=2))
    retention_cleanup.delay()

    response = OwnerClient(instance_owner).get("/retention/")

    assert response.status_code == 200
    body = response.json()
    rules = {rule["rule"]: rule for rule in body["rules"]}
    assert rules["idempotency_records"] == {
        **rules["idempotency_records"],
        "window": 24,
        "unit": "hours",
    }
    assert rules["revoked_or_expired_tokens"]["window"] == 90
    assert body["recent_runs"][0]["removed"]["idempotency_records"] == 3


def test_the_owner_changes_a_window_and_resets_it(instance_owner):
    client = OwnerClient(instance_owner)

    changed = client.request("PATCH", "/retention/revoked_or_expired_tokens/", {"value": 30})
    reset = client.request("PATCH", "/retention/revoked_or_expired_tokens/", {"value": None})

    assert changed.status_code == 200 and changed.json()["window"] == 30
    assert reset.status_code == 200 and reset.json()["window"] == 90
    assert not RetentionOverride.objects.exists()


def test_a_bad_window_is_refused_in_the_envelope_and_changes_nothing(instance_owner):
    response = OwnerClient(instance_owner).request(
        "PATCH", "/retention/idempotency_records/", {"value": 0}
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert not RetentionOverride.objects.exists()


def test_an_unknown_rule_is_not_found(instance_owner):
    response = OwnerClient(instance_owner).request("PATCH", "/retention/nope/", {"value": 3})

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_another_signed_in_user_is_forbidden(other_owner):
    response = OwnerClient(other_owner).request(
        "PATCH", "/retention/idempotency_records/", {"value": 3}
    )

    assert response.status_code == 403
    assert OwnerClient(other_owner).get("/retention/").status_code == 403
    assert not RetentionOverride.objects.exists()


def test_a_change_without_csrf_is_refused(instance_owner):
    response = OwnerClient(instance_owner, csrf=False).request(
        "PATCH", "/retention/idempotency_records/", {"value": 3}
    )

    assert response.status_code == 403
    assert not RetentionOverride.objects.exists()
