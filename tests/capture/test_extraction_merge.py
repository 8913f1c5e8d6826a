"""What extraction stores: one pending candidate per statement (evidence merges across
agents and threads), never a rejected or known statement or a never-remember phrase, and a
memory it is close to named as the one to replace, never overwritten."""

from __future__ import annotations

import pytest

from capture import extraction
from capture.extraction import Proposal, propose_candidates
from capture.models import Candidate, NeverRememberPattern, RejectedFingerprint
from memories import text
from memories.models import Memory
from tests.memories.helpers import remember

from .inbox_helpers import conversation, pending, propose, thread_of

pytestmark = pytest.mark.django_db


def test_the_same_statement_from_two_agents_merges_into_one_pending_candidate(owner):
    propose(owner, "I prefer tabs over spaces.", external_id="a", agent="claude-code")
    count, _ = propose(owner, "OK so I prefer tabs over spaces!", external_id="b", agent="codex")
    assert count == 1
    (candidate,) = pending(owner)
    assert candidate.agents == ["claude-code", "codex"]
    assert [item["agent"] for item in candidate.evidence] == ["claude-code", "codex"]
    assert len({item["thread_id"] for item in candidate.evidence}) == 2


def test_replaying_the_same_events_adds_no_evidence_twice(owner):
    thread = thread_of(owner)
    events = conversation(thread, ("user", "我们决定用 Redis 做缓存。"), ("assistant", "好。"))
    propose_candidates(thread, events, agent_name="claude-code")
    propose_candidates(thread, events, agent_name="claude-code")
    (candidate,) = pending(owner)
    assert len(candidate.evidence) == 1 and candidate.agents == ["claude-code"]


def test_a_rejected_statement_is_never_proposed_again(owner):
    fingerprint = text.fingerprint("I prefer tabs over spaces", "global", "")
    RejectedFingerprint.objects.create(
        owner=owner, fingerprint=fingerprint, content="I prefer tabs over spaces"
    )
    count, _ = propose(owner, "I prefer tabs over spaces.")
    assert count == 0 and pending(owner) == []


def test_a_rejection_of_another_owner_does_not_count(owner, other_owner):
    fingerprint = text.fingerprint("I prefer tabs over spaces", "global", "")
    RejectedFingerprint.objects.create(owner=other_owner, fingerprint=fingerprint)
    assert propose(owner, "I prefer tabs over spaces.")[0] == 1


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("SALARY", "Remember that my salary review is in March."),
        ("体检", "请记住：我下周三去医院体检。"),
    ],
)
def test_never_remember_patterns_are_honoured_case_insensitively_in_any_language(
    owner, pattern, said
):
    NeverRememberPattern.objects.create(owner=owner, pattern=pattern)
    assert propose(owner, said)[0] == 0 and pending(owner) == []


def test_a_statement_that_already_lives_as_a_memory_is_not_proposed(owner_actor, owner):
    remember(owner_actor, "I prefer tabs over spaces", kind="preference")
    assert propose(owner, "I prefer tabs over spaces.")[0] == 0


def test_a_statement_close_to_a_memory_names_it_to_replace_and_leaves_it_alone(owner_actor, owner):
    old = remember(owner_actor, "Never use tabs in Go files", kind="constraint").id
    propose(owner, "Always use tabs in Go files.")
    (candidate,) = pending(owner)
    assert str(candidate.replaces_id) == str(old)
    memory = Memory.objects.get(pk=old)
    assert (memory.status, memory.content, memory.version) == (
        "active",
        "Never use tabs in Go files",
        1,
    )


def test_an_unrelated_statement_replaces_nothing(owner_actor, owner):
    remember(owner_actor, "The staging cluster runs in Frankfurt", kind="fact")
    propose(owner, "I prefer short commit messages.")
    assert pending(owner)[0].replaces_id is None


def test_a_registered_extractor_flows_through_the_same_merge_rules(owner, settings):
    """The seam for a model-based extractor: its proposals meet the same rejections,
    patterns, merge and validity checks as the rules' ones."""

    def model(turns, project_key):
        first = turns[0].event
        return [
            Proposal(
                "The user lives in Lisbon", "fact", "global", "", "model.v1", 0.55, "(model)", first
            ),
            Proposal(
                "I prefer tabs over spaces",
                "preference",
                "global",
                "",
                "model.v1",
                0.95,
                "(model)",
                first,
            ),
            Proposal(
                "My token is [REDACTED:bearer]",
                "fact",
                "global",
                "",
                "model.v1",
                0.9,
                "(model)",
                first,
            ),
            Proposal("Talks a lot", "not-a-kind", "global", "", "model.v1", 0.9, "(model)", first),
            Proposal("Secret plans", "fact", "global", "", "model.v1", 0.9, "(model)", first),
        ]

    extraction.register_extractor("test-model", model)
    try:
        settings.CONTINUITY_EXTRACTOR = "rules,test-model"
        NeverRememberPattern.objects.create(owner=owner, pattern="secret plans")
        count, _ = propose(owner, "I prefer tabs over spaces.")
    finally:
        extraction.unregister_extractor("test-model")
    by_content = {candidate.content: candidate for candidate in pending(owner)}
    assert sorted(by_content) == ["I prefer tabs over spaces", "The user lives in Lisbon"]
    assert count == 3  # the rule's tabs, the model's tabs merged into it, Lisbon
    tabs = by_content["I prefer tabs over spaces"]
    assert tabs.confidence == 0.95 and tabs.rule == "en.prefer" and len(tabs.evidence) == 2


def test_the_rule_extractor_is_the_default_and_an_unknown_name_refuses_to_run(owner, settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.CONTINUITY_EXTRACTOR = "rules,llm-nobody-registered"
    with pytest.raises(ImproperlyConfigured, match="llm-nobody-registered"):
        propose(owner, "I prefer tabs over spaces.")
    del settings.CONTINUITY_EXTRACTOR
    assert propose(owner, "I prefer tabs over spaces.")[0] == 1
    assert Candidate.objects.get().rule == "en.prefer"
