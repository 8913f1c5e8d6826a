"""The handoff state filter has one vocabulary (handoff.contract) on both doors: the owner
API and the dashboard accept the same states, narrow the list the same way, and refuse an
unknown state the same way (VALIDATION_ERROR on `state`, 400)."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from foundation.actors import Actor
from handoff.contract import STATE_FILTERS
from handoff.services import handoff_create, handoff_expire, handoff_resume

from .conftest import error_of

pytestmark = pytest.mark.django_db

EXPECTED = {
    "active": {"open", "resumed"},
    "open": {"open"},
    "resumed": {"resumed"},
    "expired": {"expired"},
}


@pytest.fixture
def capsules(owner, agent_actor, other_agent_actor):
    ids = {}
    ids["open"] = handoff_create(actor=agent_actor, task_id="t-open", summary="Open.").pk
    ids["resumed"] = handoff_create(actor=agent_actor, task_id="t-resumed", summary="Resumed.").pk
    handoff_resume(actor=other_agent_actor, task_id="t-resumed")
    ids["expired"] = handoff_create(actor=agent_actor, task_id="t-expired", summary="Gone.").pk
    handoff_expire(actor=Actor.owner(owner), capsule_id=ids["expired"])
    return {str(pk): name for name, pk in ids.items()}


@pytest.fixture
def dashboard(owner) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def test_the_vocabulary_is_every_capsule_state_plus_active():
    assert set(STATE_FILTERS) == set(EXPECTED)


@pytest.mark.parametrize("state", sorted(EXPECTED))
def test_both_doors_accept_the_same_states_and_list_the_same_capsules(
    api, dashboard, capsules, state
):
    listed = api.get("/handoffs/", {"state": state})
    assert listed.status_code == 200
    by_api = {capsules[c["id"]] for c in listed.json()["results"]}
    html = dashboard.get("/handoffs/", {"state": state}).content.decode()
    by_dashboard = {name for pk, name in capsules.items() if f'id="h-{pk}"' in html}
    assert by_api == by_dashboard == EXPECTED[state]


@pytest.mark.parametrize("state", ["bogus", "ACTIVE", "closed"])
def test_both_doors_refuse_an_unknown_state_the_same_way(api, dashboard, capsules, state):
    error = error_of(api.get("/handoffs/", {"state": state}), 400, "VALIDATION_ERROR")
    assert error["details"][0]["field"] == "state"
    page = dashboard.get("/handoffs/", {"state": state})
    assert page.status_code == 400
    assert html.escape(error["message"]) in page.content.decode()
    assert not any(f'id="h-{pk}"' in page.content.decode() for pk in capsules)
