"""The retrieval eval's fixtures hold what the eval promises, and recall never leaks scope
on them.

The structure tests read tests/fixtures/retrieval/*.jsonl only; the last tests load the
corpus through the memory services and run part of the eval (bench/retrieval_eval.py) on
whichever database the suite runs on. Quality figures are the benchmark's business, not
asserted here; scope isolation is a rule, so it is.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from memories.models import Kind, ScopeType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "retrieval_eval.py"


def _load_eval():
    spec = importlib.util.spec_from_file_location("retrieval_eval", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("retrieval_eval", module)
    spec.loader.exec_module(module)
    return module


evaluation = _load_eval()
CORPUS, QUERIES = evaluation.read_fixtures()
HOLDOUT = evaluation.read_jsonl(evaluation.HOLDOUT_PATH)
QUERY_SETS = pytest.mark.parametrize("queries", [QUERIES, HOLDOUT], ids=["queries", "holdout"])
BY_ID = {item["id"]: item for item in CORPUS}
STATUSES = evaluation.expected_statuses(CORPUS)
CJK = re.compile(r"[\u3400-\u9fff]")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MEMORY_FIELDS = {
    "id", "content", "kind", "scope_type", "scope_key", "key", "tags", "retrieval_hints",
    "archive", "agent", "expect_status",
}  # fmt: skip
QUERY_FIELDS = {
    "query", "alt_queries", "project_key", "task_id", "agent", "kinds", "category",
    "relevant", "forbidden",
}  # fmt: skip


def _scope_of(query: dict) -> dict:
    return {"project_key": query.get("project_key"), "task_id": query.get("task_id"),
            "agent": query.get("agent")}  # fmt: skip


def _visible(item: dict, query: dict) -> bool:
    result = {"scope_type": item["scope_type"], "scope_key": item.get("scope_key") or ""}
    return evaluation.in_scope(result, _scope_of(query))


# --- the corpus -------------------------------------------------------------------------


def test_corpus_lines_are_well_formed():
    assert len(BY_ID) == len(CORPUS), "ids are unique"
    for item in CORPUS:
        assert set(item) <= MEMORY_FIELDS, item["id"]
        assert SLUG.match(item["id"]), item["id"]
        assert item["content"].strip() and len(item["content"]) <= 4000, item["id"]
        assert item["kind"] in Kind.values, item["id"]
        assert item["scope_type"] in ScopeType.values, item["id"]
        assert (item["scope_type"] == "global") == (not item.get("scope_key")), item["id"]
        if item["scope_type"] == "agent":
            assert item.get("agent") == item["scope_key"], f"{item['id']}: written by its own agent"
        for name in ("tags", "retrieval_hints"):
            assert isinstance(item.get(name, []), list), item["id"]


def test_corpus_is_big_varied_and_partly_chinese():
    assert len(CORPUS) >= 150
    projects = {item["scope_key"] for item in CORPUS if item["scope_type"] == "project"}
    assert len(projects) >= 4
    scopes = Counter(item["scope_type"] for item in CORPUS)
    assert scopes["global"] >= 10 and scopes["agent"] >= 2 and scopes["task"] >= 2
    assert len({item["scope_key"] for item in CORPUS if item["scope_type"] == "agent"}) >= 2
    assert len({item["scope_key"] for item in CORPUS if item["scope_type"] == "task"}) >= 2
    chinese = sum(1 for item in CORPUS if CJK.search(item["content"]))
    assert chinese / len(CORPUS) >= 0.30
    assert len({item["kind"] for item in CORPUS}) >= 8


def test_corpus_exercises_supersession_archive_and_disputes():
    statuses = Counter(STATUSES.values())
    assert statuses["superseded"] >= 5
    assert statuses["archived"] >= 3
    assert statuses["disputed"] >= 1
    # At least one key is rewritten twice (a chain of three versions).
    chains = Counter(evaluation.key_slot(item) for item in CORPUS if item.get("key"))
    assert max(chains.values()) >= 3


@QUERY_SETS
def test_corpus_has_the_same_topic_in_several_projects(queries):
    """Scope traps need confusable memories: each trap's forbidden ids are real memories
    in a scope the query cannot see."""
    traps = [query for query in queries if query["category"] == "scope_trap"]
    assert traps
    for query in traps:
        assert query.get("forbidden"), query["query"]
        for slug in query["forbidden"]:
            assert not _visible(BY_ID[slug], query), f"{query['query']!r}: {slug} is in scope"


# --- the queries ------------------------------------------------------------------------


def test_there_are_enough_queries():
    assert len(QUERIES) >= 80
    assert len(HOLDOUT) >= 40

    def asked(queries):
        return {
            (q["query"], q.get("project_key"), q.get("task_id"), q.get("agent")) for q in queries
        }

    assert not asked(QUERIES) & asked(HOLDOUT), "the held-out set repeats no question"


@QUERY_SETS
def test_queries_are_well_formed_and_point_at_existing_memories(queries):
    for query in queries:
        assert set(query) <= QUERY_FIELDS, query["query"]
        assert query["query"].strip(), query
        assert query["category"] in evaluation.CATEGORIES, query["query"]
        for slug in query["relevant"] + query.get("forbidden", []):
            assert slug in BY_ID, f"{query['query']!r}: unknown id {slug}"
        assert not set(query["relevant"]) & set(query.get("forbidden", [])), query["query"]


def test_every_category_is_represented():
    categories = Counter(query["category"] for query in QUERIES)
    assert set(categories) == set(evaluation.CATEGORIES)
    assert all(count >= 10 for count in categories.values()), categories
    assert set(Counter(query["category"] for query in HOLDOUT)) == set(evaluation.CATEGORIES)


@QUERY_SETS
def test_expected_answers_are_live_and_in_scope(queries):
    for query in queries:
        if query["category"] == "no_answer":
            assert query["relevant"] == [], query["query"]
            continue
        assert query["relevant"], query["query"]
        for slug in query["relevant"]:
            assert STATUSES[slug] == "active", f"{query['query']!r}: {slug} is {STATUSES[slug]}"
            assert _visible(BY_ID[slug], query), f"{query['query']!r}: {slug} is out of scope"


@QUERY_SETS
def test_supersession_queries_expect_the_newest_version(queries):
    heads = evaluation.successors(CORPUS)
    for query in queries:
        if query["category"] == "supersession":
            assert set(query["relevant"]) & set(heads.values()), query["query"]
            assert not set(query["relevant"]) & set(heads), query["query"]


def test_chinese_queries_include_two_character_keywords_and_mixed_text():
    chinese = [query["query"] for query in QUERIES if query["category"] == "chinese"]
    assert all(CJK.search(text) for text in chinese)
    two_characters = [text for text in chinese if len(text) == 2]
    assert {"缓存", "分支", "镜像", "部署"} <= set(two_characters)
    assert any(re.search(r"[A-Za-z]", text) for text in chinese), "some mix in English words"
    assert sum(1 for query in QUERIES if CJK.search(query["query"])) / len(QUERIES) >= 0.30


@QUERY_SETS
def test_queries_do_not_copy_the_memories_they_expect(queries):
    """Written from an agent's need: a query is never a long verbatim piece of its answer."""
    for query in queries:
        for slug in query["relevant"]:
            content = BY_ID[slug]["content"].casefold()
            text = query["query"].casefold().rstrip("?？ ")
            assert len(text) < 12 or text not in content, f"{query['query']!r} copies {slug}"


# --- the eval against recall ------------------------------------------------------------


@pytest.mark.django_db
def test_corpus_loads_through_the_services_with_the_expected_statuses(owner):
    actors = evaluation.make_actors(owner, evaluation.agents_named(CORPUS, QUERIES))
    ids = evaluation.load_corpus(owner, CORPUS, actors)  # raises on any status mismatch
    assert len(set(ids.values())) == len(CORPUS)


@pytest.mark.django_db
def test_recall_never_leaks_scope_on_the_eval_subset(owner):
    """Scope traps, task and agent queries, and a few of every other category, from both
    query sets."""
    subset = [
        query for index, query in enumerate(QUERIES + HOLDOUT)
        if query["category"] == "scope_trap" or query.get("task_id") or query.get("agent")
        or index % 7 == 0
    ]  # fmt: skip
    summary, outcomes = evaluation.evaluate(owner, CORPUS, subset)
    problems = [
        (outcome.query["query"], outcome.failures)
        for outcome in outcomes
        if outcome.metrics["scope_leaks"] or outcome.metrics["errors"]
        or outcome.metrics["excluded_shown"]
    ]  # fmt: skip
    assert summary["overall"]["queries"] == len(subset)
    assert problems == []
    assert summary["overall"]["scope_leaks"] == 0
