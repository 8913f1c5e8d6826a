"""Compaction: exact duplicates merged, near-duplicates and stale memories proposed, index kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from continuity.models import MaintenanceRun, ReviewProposal
from memories.compaction import compaction as compact
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.services import memory_archive, memory_confirm
from memories.tasks import compaction
from continuity.maintenance.runs import Deadline
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db


def run() -> dict:
    return compact(deadline=Deadline.after(3600))


def old_fingerprint(memory: Memory, value: str) -> Memory:
    """As if written before a normalization change: the stored fingerprint differs."""
    Memory.objects.filter(pk=memory.pk).update(fingerprint=value)
    return Memory.objects.get(pk=memory.pk)


def test_equal_statements_left_by_an_old_normalization_are_merged_into_the_most_trusted(
    owner_actor, agent_actor
):
    first = remember(agent_actor, "Deploy with Kamal on Fridays")
    old_fingerprint(Memory.objects.get(pk=first.id), "a" * 64)
    # Equal after today's normalization; the old fingerprint let it in as a second row.
    second = remember(owner_actor, "deploy with kamal on fridays.", key="deploy")
    memory_confirm(actor=owner_actor, memory_id=second.id)

    report = run()

    assert report["exact_duplicates"]["merged"] == 1
    survivor, merged = Memory.objects.get(pk=second.id), Memory.objects.get(pk=first.id)
    assert (survivor.status, merged.status) == ("active", "superseded")
    assert survivor.key == "deploy" and survivor.trust == "confirmed"
    assert MemoryLink.objects.filter(from_memory=merged, to_memory=survivor, relation="duplicates").exists()
    assert MemoryEvent.objects.filter(memory_id=survivor.pk, event_type="merged").exists()


def test_a_lone_outdated_fingerprint_is_refreshed_so_later_writes_find_the_duplicate(agent_actor):
    receipt = remember(agent_actor, "Use ruff for linting")
    fresh = Memory.objects.get(pk=receipt.id).fingerprint
    old_fingerprint(Memory.objects.get(pk=receipt.id), "b" * 64)

    report = run()

    assert report["exact_duplicates"] == {**report["exact_duplicates"], "merged": 0, "fingerprints_refreshed": 1}
    assert Memory.objects.get(pk=receipt.id).fingerprint == fresh
    assert remember(agent_actor, "use ruff for linting.").duplicate_of == receipt.id


def test_near_duplicates_are_proposed_for_review_once_and_never_merged(agent_actor):
    first = remember(agent_actor, "Use pnpm for this repo", scope_type="project", scope_key="github:a/b")
    second = remember(agent_actor, "use pnpm in this repo please", scope_type="project", scope_key="github:a/b")
    remember(agent_actor, "Use pnpm in this repo", scope_type="project", scope_key="github:c/d")

    report = run()
    again = run()

    proposal = ReviewProposal.objects.get(kind="near_duplicate")
    assert sorted(proposal.memory_ids) == sorted([str(first.id), str(second.id)])
    assert proposal.status == "pending" and proposal.score >= 0.6
    assert report["near_duplicates"]["proposed"] == 1 and again["near_duplicates"]["proposed"] == 0
    assert Memory.objects.filter(status="active").count() == 3


def test_contradictions_are_not_proposed_as_near_duplicates(agent_actor):
    remember(agent_actor, "Use tabs in Go files")
    remember(agent_actor, "Never use tabs in Go files")

    run()

    assert not ReviewProposal.objects.filter(kind="near_duplicate").exists()


def test_memories_not_verified_for_the_configured_time_are_proposed_as_stale(owner_actor, agent_actor, settings):
    settings.CONTINUITY_STALE_AFTER_DAYS = 30
    old = remember(agent_actor, "The staging host is stg-1")
    recent = remember(agent_actor, "The staging host runs Debian")
    locked = remember(owner_actor, "My editor is Helix")
    long_ago = timezone.now() - timedelta(days=40)
    Memory.objects.filter(pk__in=[old.id, locked.id]).update(created_at=long_ago)
    Memory.objects.filter(pk=locked.id).update(trust="locked")

    report = run()

    assert report["stale"]["proposed"] == 1
    proposal = ReviewProposal.objects.get(kind="stale")
    assert proposal.memory_ids == [str(old.id)]
    assert str(recent.id) not in proposal.memory_ids
    assert run()["stale"]["proposed"] == 0


def test_proposals_whose_memories_left_or_were_verified_become_obsolete(owner_actor, agent_actor, settings):
    settings.CONTINUITY_STALE_AFTER_DAYS = 30
    stale = remember(agent_actor, "The build uses make")
    archived = remember(agent_actor, "The cache is memcached")
    Memory.objects.filter(pk__in=[stale.id, archived.id]).update(created_at=timezone.now() - timedelta(days=40))
    run()
    assert ReviewProposal.objects.filter(status="pending").count() == 2

    memory_confirm(actor=owner_actor, memory_id=stale.id)  # verified now
    memory_archive(actor=owner_actor, memory_id=archived.id)
    report = run()

    assert report["obsolete"] == 2
    assert set(ReviewProposal.objects.values_list("status", flat=True)) == {"obsolete"}


def test_the_full_text_index_is_optimized(agent_actor, settings):
    remember(agent_actor, "Something to index")

    report = run()

    expected = {"sqlite": "fts5 optimize", "postgresql": "analyze"}
    assert report["index"]["action"] == expected[report["index"]["vendor"]]


def test_the_compaction_task_records_its_run_and_is_skipped_when_repeated(agent_actor):
    remember(agent_actor, "Use pnpm for this repo")
    remember(agent_actor, "use pnpm in this repo please")

    first = compaction.delay().get()
    second = compaction.delay().get()

    assert first["status"] == "succeeded" and second["status"] == "skipped"
    run = MaintenanceRun.objects.get(pk=first["run"])
    assert run.task == "memories.compaction"
    assert run.result["near_duplicates"]["proposed"] == 1
