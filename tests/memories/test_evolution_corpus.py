"""The evolution corpus holds what its README promises, and every scenario is a valid write.

The structure tests read tests/fixtures/evolution/*.jsonl only. The last test writes every
scenario of every set through the memory services, as bench/evolution_eval.py does, on
whichever database the suite runs on. How well a write's relations are judged is the
benchmark's business and is never asserted here.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

from memories import poisoning, text
from memories.models import Kind, ScopeType, Trust, Visibility

BENCH = Path(__file__).resolve().parents[2] / "bench" / "evolution_eval.py"


def _load_eval():
    spec = importlib.util.spec_from_file_location("evolution_eval", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("evolution_eval", module)
    spec.loader.exec_module(module)
    return module


evaluation = _load_eval()
TUNED = evaluation.read_set("tuned")
HELDOUT = evaluation.read_set("heldout")
HELDOUT2 = evaluation.read_set("heldout2")
HELDOUT3 = evaluation.read_set("heldout3")
HELDOUT4 = evaluation.read_set("heldout4")
ALL = TUNED + HELDOUT + HELDOUT2 + HELDOUT3 + HELDOUT4
SETS = pytest.mark.parametrize(
    "scenarios",
    [TUNED, HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4],
    ids=["tuned", "heldout", "heldout2", "heldout3", "heldout4"],
)
# Each set's scenario ids start with its own prefix (h001, h2-001), so no set repeats an id.
PREFIXES = ((TUNED, "t"), (HELDOUT, "h"), (HELDOUT2, "h2-"), (HELDOUT3, "h3-"), (HELDOUT4, "h4-"))
SCENARIO_FIELDS = {"id", "lang", "existing", "write", "gold", "note"}
MEMORY_FIELDS = {
    "ref", "content", "kind", "author", "trust", "scope_type", "scope_key", "visibility",
    "key", "tags",
}  # fmt: skip
WRITE_FIELDS = {"author", "content", "kind", "scope_type", "scope_key", "key", "tags"}
# Share of (scenario, existing) pairs per gold relation in the tuned set, give or take 6 points.
TUNED_SHARES = {"duplicate": 0.20, "refines": 0.15, "supersedes": 0.20, "contradicts": 0.20,
                "related": 0.10, "none": 0.15}  # fmt: skip


def _pairs(scenarios):
    for scenario in scenarios:
        for memory in scenario["existing"]:
            yield scenario, memory, scenario["gold"][memory["ref"]]


def _projects(scenarios) -> set[str]:
    return {
        item["scope_key"]
        for scenario in scenarios
        for item in (*scenario["existing"], scenario["write"])
        if item["scope_type"] == ScopeType.PROJECT
    }


def _agents(scenarios) -> set[str]:
    return {
        evaluation.agent_name(item["author"])
        for scenario in scenarios
        for item in (*scenario["existing"], scenario["write"])
        if item["author"] != "owner"
    }


def _check_scope(item: dict, where: str) -> None:
    assert item["scope_type"] in ScopeType.values, where
    assert (item["scope_type"] == ScopeType.GLOBAL) == (not item["scope_key"]), where
    if item["scope_type"] == ScopeType.AGENT and item["author"] != "owner":
        agent = evaluation.agent_name(item["author"])
        assert item["scope_key"] == agent, f"{where}: an agent writes only its own agent scope"


@SETS
def test_scenarios_are_well_formed(scenarios):
    prefix = next(prefix for named, prefix in PREFIXES if named is scenarios)
    ids = [scenario["id"] for scenario in scenarios]
    assert len(set(ids)) == len(ids)
    for scenario in scenarios:
        where = scenario["id"]
        assert set(scenario) == SCENARIO_FIELDS, where
        assert where.startswith(prefix) and scenario["note"].strip(), where
        assert scenario["lang"] in evaluation.LANGUAGES, where
        assert 1 <= len(scenario["existing"]) <= 4, where
        refs = [memory["ref"] for memory in scenario["existing"]]
        assert len(set(refs)) == len(refs), where
        write = scenario["write"]
        assert set(write) == WRITE_FIELDS, where
        assert evaluation.agent_name(write["author"]), f"{where}: an agent writes"
        for item in (*scenario["existing"], write):
            assert item["content"].strip() and len(item["content"]) <= 4000, where
            assert item["kind"] in Kind.values, where
            assert item["author"] == "owner" or evaluation.agent_name(item["author"]), where
            assert isinstance(item["tags"], list), where
            assert item["key"] is None or (isinstance(item["key"], str) and item["key"]), where
            _check_scope(item, where)
        for memory in scenario["existing"]:
            assert set(memory) == MEMORY_FIELDS, where
            assert memory["visibility"] in Visibility.values, where
            assert memory["trust"] in Trust.values, where
            if memory["author"] == "owner":
                assert memory["trust"] in evaluation.OWNER_TRUSTS, f"{where}: owner trust"
            if memory["visibility"] == Visibility.PRIVATE:
                assert memory["author"] != write["author"], (
                    f"{where}: the writer has no private:read"
                )


@SETS
def test_gold_names_every_existing_memory_with_a_known_relation(scenarios):
    for scenario in scenarios:
        assert set(scenario["gold"]) == {m["ref"] for m in scenario["existing"]}, scenario["id"]
        assert set(scenario["gold"].values()) <= set(evaluation.CLASSES), scenario["id"]


@SETS
def test_memories_the_writer_cannot_read_or_of_another_project_are_gold_none(scenarios):
    for scenario, memory, gold in _pairs(scenarios):
        if not evaluation.readable_by_writer(scenario, memory):
            assert gold == "none", f"{scenario['id']}/{memory['ref']}: unreadable"
        if evaluation.other_scope(scenario, memory):
            assert gold == "none", f"{scenario['id']}/{memory['ref']}: another project or task"


@SETS
def test_no_two_existing_memories_of_a_scenario_are_one_statement(scenarios):
    for scenario in scenarios:
        prints = [
            (text.fingerprint(m["content"], m["scope_type"], m["scope_key"]), m["visibility"])
            for m in scenario["existing"]
        ]
        assert len(set(prints)) == len(prints), scenario["id"]


def test_the_tuned_set_is_big_and_spread_over_the_relations():
    assert len(TUNED) >= 220
    counts = Counter(gold for _, _, gold in _pairs(TUNED))
    total = sum(counts.values())
    for relation, share in TUNED_SHARES.items():
        assert abs(counts[relation] / total - share) <= 0.06, (relation, counts[relation], total)


@SETS
def test_every_relation_is_met_against_owner_and_agent_memories(scenarios):
    met = Counter(
        (gold, memory["trust"] in evaluation.OWNER_TRUSTS, memory["author"] == "owner")
        for _, memory, gold in _pairs(scenarios)
    )
    for relation in evaluation.CLASSES:
        assert met[(relation, True, True)], f"{relation} against an owner memory"
        assert met[(relation, False, False)], f"{relation} against an agent memory"
    for relation in ("duplicate", "supersedes", "contradicts"):
        locked = [m for _, m, g in _pairs(scenarios) if g == relation and m["trust"] == "locked"]
        assert locked, f"{relation} against a locked memory"


@SETS
def test_a_third_of_each_set_is_chinese_mixed_or_cross_language(scenarios):
    langs = Counter(scenario["lang"] for scenario in scenarios)
    assert (langs["zh"] + langs["mixed"] + langs["cross"]) / len(scenarios) >= 0.3, langs
    assert langs["cross"] >= 8, langs
    for scenario in scenarios:
        write_lang = evaluation.text_language(scenario["write"]["content"])
        langs_seen = {evaluation.text_language(m["content"]) for m in scenario["existing"]}
        if scenario["lang"] == "cross":
            assert langs_seen - {write_lang}, f"{scenario['id']}: cross needs two languages"
        elif scenario["lang"] in ("zh", "mixed"):
            assert write_lang == "zh", scenario["id"]
        else:
            assert langs_seen == {write_lang} == {"en"}, scenario["id"]


@SETS
def test_each_set_has_the_hard_cases(scenarios):
    pairs = list(_pairs(scenarios))
    assert sum(evaluation.other_scope(s, m) for s, m, _ in pairs) >= 5, "other-project look-alikes"
    private = [m for s, m, _ in pairs if m["visibility"] == "private" and m["author"] != "owner"]
    assert len(private) >= 3, "other agents' private memories"
    assert sum(m["scope_type"] == "global" and s["write"]["scope_type"] != "global"
               for s, m, g in pairs if g != "none") >= 5, "global memories read from a project"  # fmt: skip
    assert sum(len(s["existing"]) >= 2 for s in scenarios) >= 6, "several memories per write"
    cross_duplicates = [
        m for s, m, g in pairs if g == "duplicate"
        and evaluation.text_language(m["content"]) != evaluation.text_language(s["write"]["content"])
    ]  # fmt: skip
    assert len(cross_duplicates) >= 6, "translations"


@pytest.mark.parametrize(
    ("later", "earlier", "size"),
    [
        (HELDOUT, [TUNED], 80),
        (HELDOUT2, [TUNED, HELDOUT], 130),
        (HELDOUT3, [TUNED, HELDOUT, HELDOUT2], 180),
        (HELDOUT4, [TUNED, HELDOUT, HELDOUT2, HELDOUT3], 220),
    ],
    ids=["heldout", "heldout2", "heldout3", "heldout4"],
)
def test_a_heldout_set_shares_no_project_agent_or_statement_with_the_sets_before_it(
    later, earlier, size
):
    assert len(later) >= size
    before = [scenario for scenarios in earlier for scenario in scenarios]
    assert not _projects(before) & _projects(later)
    assert not _agents(before) & _agents(later)
    statements = {
        text.normalize(item["content"])
        for scenario in before
        for item in (*scenario["existing"], scenario["write"])
    }
    for scenario in later:
        for item in (*scenario["existing"], scenario["write"]):
            assert text.normalize(item["content"]) not in statements, scenario["id"]


def test_no_agent_text_reads_as_instructions_to_agents():
    """What agents write here is ordinary notes: a quarantined write would hide the relation
    under test. The rules are checked here; the classifier, which needs the model for every
    text (most of a minute for the corpus), is run by the benchmark, which fails on any
    quarantined text."""
    texts = {
        piece
        for scenario in ALL
        for item in (*scenario["existing"], scenario["write"])
        if item["author"] != "owner"
        for piece in (item["content"], item["key"], *item["tags"])
        if piece
    }
    assert not [t for t in sorted(texts) if any(not f.weak for f in poisoning.rule_findings(t))]


@pytest.mark.django_db
def test_every_scenario_is_written_through_the_memory_services(settings):
    """Each existing memory and each write is accepted by memory_remember as its author:
    no refusal (bad input, a secret, a forbidden scope or trust), no quarantine. The model
    is off here: embedding and classifying every text would take most of a minute."""
    settings.CONTINUITY_EMBEDDER = "none"
    for number, scenario in enumerate(ALL):
        outcome = evaluation.run_scenario(scenario, number, embed=False)
        where = scenario["id"]
        assert not outcome.error, f"{where}: {outcome.error}"
        assert not [a for a in outcome.setup_anomalies if "quarantined" in a], where
        assert not outcome.receipt["quarantine"], f"{where}: the write reads as instructions"


def test_the_benchmark_reads_relations_when_the_receipt_has_them_and_the_baseline_otherwise():
    ids = {"a": "id-a", "b": "id-b", "c": "id-c"}
    receipt = {
        "id": "id-a", "evolution": {"action": "duplicate", "supersedes": None},
        "relations": [
            {"id": "id-a", "relation": "duplicate", "confidence": 0.9,
             "signals": ["paraphrase"], "action": "returned"},
            {"id": "id-b", "relation": "refines", "confidence": 1.5, "signals": [],
             "action": "linked"},
            {"id": "id-x", "relation": "related", "confidence": 0.5, "signals": [],
             "action": "linked"},
        ],
    }  # fmt: skip
    reading = evaluation.read_receipt(receipt, ids)
    assert reading.mode == "relations"
    assert reading.predicted == {"a": "duplicate", "b": "refines"}
    assert reading.unknown_ids == 1
    assert reading.contract == ["confidence 1.5"]

    baseline = evaluation.read_receipt(
        {"id": "new", "evolution": {"action": "replaced", "supersedes": "id-c"},
         "duplicate_of": None, "similar": [{"id": "id-a", "similarity": 0.93}],
         "contradictions": [{"id": "id-b", "reason": "negation", "similarity": 0.8}]},
        ids,
    )  # fmt: skip
    assert baseline.mode == "baseline"
    assert baseline.predicted == {"a": "duplicate", "b": "contradicts", "c": "supersedes"}
