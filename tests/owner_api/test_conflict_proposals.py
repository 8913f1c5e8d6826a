"""The owner answers the relation judge's conflicts through the owner API
(`/api/owner/proposals/`): the same three answers as Review, the one error envelope, and a
paged list with its total count. Conflicts come from real writes."""

from __future__ import annotations

import pytest

from memories.models import Memory, MemoryLink, ReviewProposal
from memories.services import memory_delete
from tests.memories.helpers import remember

from .conftest import db_state, error_of

pytestmark = pytest.mark.django_db

PAIRS = [
    ("Always use tabs for indentation in the Go services",
     "Never use tabs for indentation in the Go services"),
    ("我们使用 Redis 做缓存", "我们不使用 Redis 做缓存"),
    ("Always run the linter before every commit in this repo",
     "Never run the linter before every commit in this repo"),
]  # fmt: skip


@pytest.fixture
def conflicts(owner_actor, agent_actor) -> list[ReviewProposal]:
    # One project each, so that no pair is judged against another.
    for n, (old, new) in enumerate(PAIRS):
        scope = {"kind": "decision", "scope_type": "project", "scope_key": f"github:ada/p{n}"}
        remember(owner_actor, content=old, trust="confirmed", **scope)
        remember(agent_actor, content=new, **scope)
    proposals = list(ReviewProposal.objects.filter(kind="conflict").order_by("created_at", "id"))
    assert len(proposals) == len(PAIRS)
    return proposals


def test_the_list_is_paged_with_a_total_count(api, conflicts):
    first = api.get("/proposals/", {"kind": "conflict", "limit": 2}).json()
    assert first["count"] == 3 and len(first["results"]) == 2 and first["next_cursor"]
    rest = api.get(
        "/proposals/", {"kind": "conflict", "limit": 2, "cursor": first["next_cursor"]}
    ).json()
    assert rest["count"] == 3 and rest["next_cursor"] is None
    seen = [item["id"] for item in first["results"] + rest["results"]]
    assert sorted(seen) == sorted(p.pk for p in conflicts)
    detail = rest["results"][0]["detail"]
    assert {"relation", "new", "old", "signals", "writer"} <= set(detail)
    assert api.get("/proposals/", {"status": "accepted"}).json()["count"] == 0


def test_take_new_through_the_api(api, conflicts):
    proposal = conflicts[1]
    response = api.post(f"/proposals/{proposal.pk}/accept/", {"resolution": "take_new"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "accepted" and body["detail"]["resolution"] == "take_new"
    new = Memory.objects.get(pk=proposal.detail["new"])
    assert (new.content, new.status, new.held) == ("我们不使用 Redis 做缓存", "active", False)
    assert Memory.objects.get(pk=proposal.detail["old"]).status == "superseded"
    assert api.get("/proposals/", {"kind": "conflict"}).json()["count"] == 2


def test_keep_old_and_both_true_through_the_api(api, conflicts):
    kept, both = conflicts[0], conflicts[2]
    assert api.post(f"/proposals/{kept.pk}/accept/", {"resolution": "keep_old"}).status_code == 200
    assert Memory.objects.get(pk=kept.detail["new"]).status == "archived"
    assert api.post(f"/proposals/{both.pk}/accept/", {"resolution": "both_true"}).status_code == 200
    assert set(
        MemoryLink.objects.filter(
            from_memory_id=both.detail["new"], to_memory_id=both.detail["old"]
        ).values_list("relation", "created_by_agent")
    ) == {("related_to", "")}


def test_a_bad_answer_is_a_validation_error_and_changes_nothing(api, conflicts):
    proposal = conflicts[0]
    before = db_state()
    error = error_of(
        api.post(f"/proposals/{proposal.pk}/accept/", {"resolution": "keep_mine"}),
        400, "VALIDATION_ERROR",
    )  # fmt: skip
    assert error["details"][0]["field"] == "resolution"
    error_of(api.post(f"/proposals/{proposal.pk}/accept/", {}), 400, "VALIDATION_ERROR")
    error_of(
        api.post(f"/proposals/{proposal.pk}/accept/", {"resolution": "verify"}),
        400, "VALIDATION_ERROR",
    )  # fmt: skip
    assert db_state() == before
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "pending"


def test_another_owners_conflict_is_not_found(other_api, conflicts):
    proposal = conflicts[0]
    error_of(
        other_api.post(f"/proposals/{proposal.pk}/accept/", {"resolution": "take_new"}),
        404, "NOT_FOUND",
    )  # fmt: skip
    assert other_api.get("/proposals/").json()["count"] == 0
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "pending"


def test_a_conflict_about_a_deleted_memory_is_a_conflict_error(api, owner_actor, conflicts):
    proposal = conflicts[0]
    memory_delete(actor=owner_actor, memory_id=proposal.detail["old"])
    before = db_state()
    error = error_of(
        api.post(f"/proposals/{proposal.pk}/accept/", {"resolution": "take_new"}), 409, "CONFLICT"
    )
    assert "nothing was changed" in error["message"]
    assert db_state() == before
