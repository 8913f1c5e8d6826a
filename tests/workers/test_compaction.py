"""Compaction: exact duplicates merged, near-duplicates and stale memories proposed, index kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.maintenance.runs import Deadline
from foundation.models import MaintenanceRun
from memories.compaction import compaction as compact
from memories.embeddings import index as vector_index
from memories.embeddings.models import MemoryVector
from memories.models import Memory, MemoryEvent, MemoryLink, ReviewProposal
from memories.services import memory_archive, memory_confirm
from memories.tasks import compaction
from tests.memories.helpers import remember
from tests.workers.compaction_helpers import before_the_judge

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
    assert MemoryLink.objects.filter(
        from_memory=merged, to_memory=survivor, relation="duplicates"
    ).exists()
    assert MemoryEvent.objects.filter(memory_id=survivor.pk, event_type="merged").exists()


def test_a_lone_outdated_fingerprint_is_refreshed_so_later_writes_find_the_duplicate(agent_actor):
    receipt = remember(agent_actor, "Use ruff for linting")
    fresh = Memory.objects.get(pk=receipt.id).fingerprint
    old_fingerprint(Memory.objects.get(pk=receipt.id), "b" * 64)

    report = run()

    assert report["exact_duplicates"] == {
        **report["exact_duplicates"],
        "merged": 0,
        "fingerprints_refreshed": 1,
    }
    assert Memory.objects.get(pk=receipt.id).fingerprint == fresh
    assert remember(agent_actor, "use ruff for linting.").duplicate_of == receipt.id


def test_near_duplicates_are_proposed_for_review_once_and_never_merged(agent_actor):
    # A write now returns the memory it repeats; these were written before it did.
    with before_the_judge():
        first = remember(
            agent_actor, "Use pnpm for this repo", scope_type="project", scope_key="github:a/b"
        )
        second = remember(
            agent_actor, "use pnpm in this repo please", scope_type="project",
            scope_key="github:a/b",
        )  # fmt: skip
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


def test_memories_not_verified_for_the_configured_time_are_proposed_as_stale(
    owner_actor, agent_actor, settings
):
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


def test_proposals_whose_memories_left_or_were_verified_become_obsolete(
    owner_actor, agent_actor, settings
):
    settings.CONTINUITY_STALE_AFTER_DAYS = 30
    stale = remember(agent_actor, "The build uses make")
    archived = remember(agent_actor, "The cache is memcached")
    Memory.objects.filter(pk__in=[stale.id, archived.id]).update(
        created_at=timezone.now() - timedelta(days=40)
    )
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

    expected = {"sqlite": "fts5 optimize", "postgresql": "gin pending lists merged, analyze"}
    assert report["index"]["action"] == expected[report["index"]["vendor"]]


def test_the_compaction_task_records_its_run_and_is_skipped_when_repeated(agent_actor):
    with before_the_judge():
        remember(agent_actor, "Use pnpm for this repo")
        remember(agent_actor, "use pnpm in this repo please")

    first = compaction.delay().get()
    second = compaction.delay().get()

    assert first["status"] == "succeeded" and second["status"] == "skipped"
    run = MaintenanceRun.objects.get(pk=first["run"])
    assert run.task == "memories.compaction"
    assert run.result["near_duplicates"]["proposed"] == 1


# --- weekly rollup of old episodes ----------------------------------------------------------

PROJECT = {"scope_type": "project", "scope_key": "github:acme/api"}


def episode(actor, content, *, days_ago, **fields):
    receipt = remember(actor, content, kind="event", type="episodic", **{**PROJECT, **fields})
    Memory.objects.filter(pk=receipt.id).update(
        created_at=timezone.now() - timedelta(days=days_ago)
    )
    return receipt


def monday_weeks_ago(weeks: int) -> float:
    """Days ago of a Monday noon `weeks` weeks back, so a test's episodes share an ISO week."""
    today = timezone.now()
    return weeks * 7 + today.weekday() + (today.hour - 12) / 24


def test_old_episodes_become_one_weekly_summary_per_project_and_are_archived(agent_actor, settings):
    settings.CONTINUITY_ROLLUP_AFTER_DAYS = 30
    base = monday_weeks_ago(8)
    first = episode(agent_actor, "Deployed release 1.4 to staging", days_ago=base)
    second = episode(agent_actor, "Rolled back 1.4 after a failed migration", days_ago=base - 1)
    other_week = episode(agent_actor, "Fixed the migration and redeployed", days_ago=base - 7)
    recent = episode(agent_actor, "Released 1.5", days_ago=2)
    fact = remember(agent_actor, "The API is written in Go", **PROJECT)

    report = run()

    assert report["rollup"] == {**report["rollup"], "summaries": 2, "archived": 3}
    summaries = Memory.objects.filter(source_agent="continuity-compaction")
    assert summaries.count() == 2
    week = summaries.get(links_out__to_memory=first.id)
    assert "Deployed release 1.4 to staging" in week.content and "Rolled back 1.4" in week.content
    assert week.type == "episodic" and week.trust == "observed" and week.status == "active"
    sources = MemoryLink.objects.filter(from_memory=week, relation="derived_from")
    assert {str(pk) for pk in sources.values_list("to_memory", flat=True)} == {
        str(first.id),
        str(second.id),
    }
    rolled = Memory.objects.filter(pk__in=[first.id, second.id, other_week.id])
    assert set(rolled.values_list("status", flat=True)) == {"archived"}
    assert Memory.objects.get(pk=recent.id).status == "active"
    assert Memory.objects.get(pk=fact.id).status == "active"
    assert run()["rollup"]["summaries"] == 0  # idempotent


def test_a_late_episode_for_a_rolled_up_week_makes_a_new_version_of_its_summary(
    agent_actor, settings
):
    settings.CONTINUITY_ROLLUP_AFTER_DAYS = 30
    base = monday_weeks_ago(6)
    episode(agent_actor, "Planned the Q3 roadmap", days_ago=base)
    run()
    late = episode(agent_actor, "Imported notes from the planning meeting", days_ago=base - 1)

    run()

    current = Memory.objects.get(source_agent="continuity-compaction", status="active")
    assert current.version == 2 and current.supersedes is not None
    assert "Planned the Q3 roadmap" in current.content and "Imported notes" in current.content
    assert Memory.objects.get(pk=late.id).status == "archived"


def test_owner_trusted_and_private_episodes_are_handled_apart(owner_actor, agent_actor, settings):
    settings.CONTINUITY_ROLLUP_AFTER_DAYS = 30
    base = monday_weeks_ago(6)
    confirmed = episode(owner_actor, "Signed the hosting contract", days_ago=base)
    shared = episode(agent_actor, "Benchmarked the new cache", days_ago=base)
    private = episode(
        owner_actor, "Salary talk went well", days_ago=base, visibility="private", trust="observed"
    )

    run()

    assert Memory.objects.get(pk=confirmed.id).status == "active"
    summaries = Memory.objects.filter(source_agent="continuity-compaction")
    assert {memory.visibility for memory in summaries} == {"shared", "private"}
    shared_summary = summaries.get(visibility="shared")
    assert "Salary" not in shared_summary.content and "Benchmarked" in shared_summary.content
    assert (
        Memory.objects.get(pk=shared.id).status
        == Memory.objects.get(pk=private.id).status
        == "archived"
    )


def test_a_weekly_summary_is_embedded_like_any_written_memory(
    agent_actor, settings, django_capture_on_commit_callbacks
):
    settings.CONTINUITY_ROLLUP_AFTER_DAYS = 30
    vector_index.forget_all()
    episode(agent_actor, "Deployed release 1.4 to staging", days_ago=monday_weeks_ago(8))

    with django_capture_on_commit_callbacks(execute=True):
        run()

    summary = Memory.objects.get(source_agent="continuity-compaction")
    assert MemoryVector.objects.filter(memory=summary).exists()
    vector_index.forget_all()
