"""Compaction reads pairs of live memories with the relation judge writes use: duplicates are
proposed for merging, contradictions and supersessions raised as conflicts, never the reverse."""

from __future__ import annotations

import pytest

from foundation.maintenance.runs import Deadline
from memories.compaction import compaction as compact
from memories.models import Memory, MemoryLink, ReviewProposal
from tests.memories.helpers import remember
from tests.workers.compaction_helpers import before_the_judge

pytestmark = pytest.mark.django_db

# Pairs the lexical check of memories.text read as near-duplicates (similarity 0.6-1.0, no
# contradiction found) that cannot both be true.
DISAGREEING = [
    ("Use pnpm in this repo, do not use yarn", "Do not use pnpm in this repo", "contradicts"),
    ("Use pnpm. Never use npm", "Use npm. Never use pnpm", "contradicts"),
    ("Always use pnpm, never npm, in this repo", "Always use npm, never pnpm, in this repo",
     "contradicts"),
    ("The API listens on port 8000", "The API listens on port 9000", "supersedes"),
]  # fmt: skip


def run(deadline: Deadline | None = None) -> dict:
    return compact(deadline=deadline or Deadline.after(3600))


def project(name: str) -> dict:
    return {"scope_type": "project", "scope_key": f"github:acme/{name}"}


def conflicts() -> list[ReviewProposal]:
    return list(ReviewProposal.objects.filter(kind="conflict").order_by("pk"))


def test_a_pair_the_judge_reads_as_disagreeing_is_never_proposed_for_merging(owner_actor):
    with before_the_judge():
        for index, (older, newer, _) in enumerate(DISAGREEING):
            remember(owner_actor, older, **project(f"r{index}"))
            remember(owner_actor, newer, **project(f"r{index}"))

    report = run()

    assert not ReviewProposal.objects.filter(kind="near_duplicate").exists()
    assert report["near_duplicates"]["proposed"] == 0
    assert sorted(p.detail["relation"] for p in conflicts()) == sorted(r for *_, r in DISAGREEING)
    assert report["conflicts"]["proposed"] == len(DISAGREEING)
    assert Memory.objects.filter(status="active").count() == 2 * len(DISAGREEING)


def test_a_contradiction_written_before_the_judge_is_raised_as_a_write_raises_it(agent_actor):
    remember(agent_actor, "Run the linter before every commit", **project("a"))
    remember(agent_actor, "Never run the linter before a commit", **project("a"))
    from_a_write = conflicts()[0]
    with before_the_judge():
        older = remember(agent_actor, "Use tabs in Go files", **project("b"))
        newer = remember(agent_actor, "Never use tabs in Go files", **project("b"))

    report = run()

    ids = sorted([str(older.id), str(newer.id)])
    (found,) = [p for p in conflicts() if p.memory_ids == ids]
    assert found.key == f"conflict:{':'.join(ids)}" and found.memory_ids == ids
    assert found.status == "pending" and found.score >= 0.8
    assert set(found.detail) == set(from_a_write.detail)
    assert found.detail["relation"] == "contradicts"
    assert (found.detail["new"], found.detail["old"]) == (str(newer.id), str(older.id))
    assert found.detail["writer"] == from_a_write.detail["writer"] == "agent:claude-code"
    assert "negation" in found.detail["signals"]
    assert report["conflicts"]["proposed"] == 1  # the write's own pair is not raised twice
    assert not MemoryLink.objects.filter(from_memory=newer.id).exists()  # the owner decides
    assert {m.status for m in Memory.objects.all()} == {"active"}


def test_a_new_value_without_a_change_cue_is_raised_as_a_supersession(agent_actor):
    with before_the_judge():
        older = remember(agent_actor, "CI runs on Node 18", **project("a"))
        newer = remember(agent_actor, "CI runs on Node 20", **project("a"))

    run()

    (found,) = conflicts()
    assert found.detail["relation"] == "supersedes"
    assert (found.detail["new"], found.detail["old"]) == (str(newer.id), str(older.id))
    assert any("18 → 20" in signal for signal in found.detail["signals"])
    assert Memory.objects.get(pk=older.id).status == "active"  # never retired by compaction


def test_a_change_cue_in_the_older_memory_keeps_the_pair_from_being_a_duplicate(owner_actor):
    # Read newer to older, "use npm" repeats most of the older statement; read the other
    # way, the older one says it replaced npm. They disagree.
    with before_the_judge():
        remember(owner_actor, "We use pnpm now instead of npm in this repo", **project("a"))
        remember(owner_actor, "Use npm in this repo", **project("a"))

    run()

    assert not ReviewProposal.objects.filter(kind="near_duplicate").exists()
    (found,) = conflicts()
    assert found.detail["relation"] == "contradicts"
    assert "read from the older one" in found.detail["signals"]


def test_conflicts_are_raised_once_and_a_dismissed_one_never_again(agent_actor):
    with before_the_judge():
        remember(agent_actor, "Use tabs in Go files")
        remember(agent_actor, "Never use tabs in Go files")
    assert run()["conflicts"]["proposed"] == 1

    again = run()
    ReviewProposal.objects.filter(kind="conflict").update(status="dismissed")
    after_dismissal = run()

    assert again["conflicts"]["proposed"] == after_dismissal["conflicts"]["proposed"] == 0
    assert [p.status for p in conflicts()] == ["dismissed"]


def test_a_pair_already_linked_or_answered_both_true_is_left_alone(owner, agent_actor):
    with before_the_judge():
        linked_old = remember(agent_actor, "Use tabs in Go files", **project("a"))
        linked_new = remember(agent_actor, "Never use tabs in Go files", **project("a"))
        answered_old = remember(agent_actor, "Deploy on Fridays", **project("b"))
        answered_new = remember(agent_actor, "Never deploy on Fridays", **project("b"))
    MemoryLink.objects.create(
        owner=owner, from_memory_id=linked_new.id, to_memory_id=linked_old.id,
        relation="contradicts", created_by_agent="claude-code",
    )  # fmt: skip
    MemoryLink.objects.create(
        owner=owner, from_memory_id=answered_new.id, to_memory_id=answered_old.id,
        relation="related_to", created_by_agent="",  # the owner: "both are true"
    )  # fmt: skip
    ids = sorted([answered_new.id, answered_old.id])
    ReviewProposal.objects.create(
        owner=owner, kind="conflict", key="answered-elsewhere", memory_ids=ids,
        status="accepted", detail={"resolution": "both_true"},
    )  # fmt: skip

    report = run()

    assert [p.key for p in conflicts()] == ["answered-elsewhere"]  # only the owner's answer
    assert report["conflicts"]["proposed"] == 0
    assert not ReviewProposal.objects.filter(kind="near_duplicate").exists()


def test_only_one_scope_or_a_scope_and_the_global_one_are_compared(agent_actor):
    with before_the_judge():
        remember(agent_actor, "Use pnpm for installs", **project("a"))
        remember(agent_actor, "Do not use pnpm for installs", **project("b"))
        in_task = remember(
            agent_actor, "Do not use pnpm for installs", scope_type="task", scope_key="t-1"
        )
        global_one = remember(agent_actor, "Use pnpm for installs")

    run()

    # Two projects, or a project and a task, never; each of them against the global one.
    pairs = [set(p.memory_ids) for p in conflicts()]
    assert len(pairs) == 2 and all(str(global_one.id) in ids for ids in pairs)
    assert any(str(in_task.id) in ids for ids in pairs)


def test_other_owners_and_held_memories_are_never_compared(owner_actor, agent_actor, other_owner):
    from foundation.actors import Actor

    with before_the_judge():
        remember(agent_actor, "Use tabs in Go files")
        remember(Actor.owner(other_owner), "Never use tabs in Go files")
        remember(owner_actor, "Deploy on Fridays", trust="confirmed")
        remember(agent_actor, "Use pnpm for this repo", **project("a"))
        repeated = remember(agent_actor, "use pnpm in this repo please", **project("a"))
    Memory.objects.filter(pk=repeated.id).update(held=True)
    # Against the owner's confirmed memory an agent's contradiction is held (disputed).
    held = remember(agent_actor, "Never deploy on Fridays")
    assert Memory.objects.get(pk=held.id).held
    ReviewProposal.objects.all().delete()
    MemoryLink.objects.all().delete()

    report = run()

    assert conflicts() == [] and report["conflicts"]["proposed"] == 0
    assert not ReviewProposal.objects.filter(kind="near_duplicate").exists()


def test_vectors_find_a_contradiction_in_the_other_language(agent_actor):
    with before_the_judge():
        english = remember(agent_actor, "Run the database migrations before deploying")
        chinese = remember(agent_actor, "部署之前不要运行数据库迁移")
        remember(agent_actor, "Write commit messages in English", **project("a"))
        remember(agent_actor, "提交信息用英文写", **project("a"))

    run()

    (found,) = conflicts()  # no shared term: only the vectors bring this pair together
    assert found.memory_ids == sorted([str(english.id), str(chinese.id)])
    assert found.detail["relation"] == "contradicts"
    assert "other language" in found.detail["signals"]
    translated = ReviewProposal.objects.get(kind="near_duplicate")
    assert "other language" in translated.detail["signals"]


def test_a_run_past_its_deadline_compares_nothing_and_says_it_is_incomplete(agent_actor):
    with before_the_judge():
        remember(agent_actor, "Use tabs in Go files")
        remember(agent_actor, "Never use tabs in Go files")

    report = run(Deadline.after(-1))

    assert report["conflicts"] == {"pairs_compared": 0, "proposed": 0}
    assert report["complete"] is False and conflicts() == []
