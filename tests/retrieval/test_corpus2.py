"""The second retrieval set's composition (corpus2.jsonl, queries2.jsonl): counts, scopes,
key chains, languages and hygiene. Nothing here runs recall: the set is measured by the
evaluation, and checking its results here would be tuning on it."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

import pytest

pytestmark = pytest.mark.once

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "retrieval"
CORPUS = FIXTURES / "corpus2.jsonl"
QUERIES = FIXTURES / "queries2.jsonl"
FIRST_CORPUS = FIXTURES / "corpus.jsonl"

KINDS = {
    "preference",
    "fact",
    "decision",
    "constraint",
    "entity",
    "event",
    "outcome",
    "lesson",
    "procedure",
    "task_state",
}
SCOPES = {"global", "project", "task", "agent"}
AGENTS = {"claude-code", "codex", "cursor", "gemini-cli"}
DEFAULT_AGENT = "claude-code"
CATEGORIES = {
    "need",
    "chinese",
    "cross_language",
    "false_friend",
    "strong_single",
    "project_first",
    "multi_answer",
    "no_answer",
    "scope_trap",
    "supersession",
}
MEMORY_FIELDS = {"id", "content", "kind", "scope_type", "scope_key", "tags"}
MEMORY_OPTIONAL = {"agent", "key", "archive", "retrieval_hints"}
QUERY_FIELDS = {"query", "category", "relevant", "split"}
QUERY_OPTIONAL = {"project_key", "task_id", "agent", "forbidden"}

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,}")
WINDOW = 32  # characters of a shared stretch that would count as reuse
SENTENCE_END = re.compile(r"[.。;；!?！？:：\n]+\s*")

SECRET_PATTERNS = [
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bsk-[A-Za-z0-9]{16,}"),
    re.compile(r"xox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY"),
    re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    re.compile(r"(?i)(password|passwd|secret|token|api[_-]?key)\s*[:=]\s*\S{6,}"),
    re.compile(r"[A-Za-z0-9+/=_-]{40,}"),
    re.compile(r"(?i)ignore (all |any )?(previous|prior|above|earlier) (instructions|rules)"),
    re.compile(r"忽略(之前|以上|所有|先前)的?(指令|规则|指示)"),
]


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


MEMORIES = load(CORPUS)
QUERY_ROWS = load(QUERIES)
BY_ID = {memory["id"]: memory for memory in MEMORIES}


def language(text: str) -> str:
    """'en' without Chinese characters; 'zh' when Latin letters are under a fifth of all
    letters; otherwise 'mixed' (Chinese sentences carrying Latin technical terms)."""
    cjk, latin = len(CJK.findall(text)), len(LATIN.findall(text))
    if cjk == 0:
        return "en"
    return "zh" if latin / (latin + cjk) < 0.2 else "mixed"


def shares(rows: list[str]) -> dict[str, float]:
    counts = Counter(language(text) for text in rows)
    return {lang: counts[lang] / len(rows) for lang in ("en", "zh", "mixed")}


def tokens(text: str) -> set[str]:
    latin = {word.lower() for word in LATIN_WORD.findall(text)}
    chars = "".join(CJK.findall(text))
    return latin | {chars[i : i + 2] for i in range(len(chars) - 1)}


def chains() -> dict[tuple[str, str, str], list[dict]]:
    grouped = defaultdict(list)
    for memory in MEMORIES:
        if memory.get("key"):
            grouped[(memory["scope_type"], memory["scope_key"], memory["key"])].append(memory)
    return grouped


SUPERSEDED = {m["id"] for chain in chains().values() for m in chain[:-1]}
CHAIN_OF = {m["id"]: key for key, chain in chains().items() for m in chain}


def readable(query: dict, memory: dict) -> bool:
    scope, key = memory["scope_type"], memory["scope_key"]
    return (
        scope == "global"
        or (scope == "project" and key == query.get("project_key"))
        or (scope == "task" and key == query.get("task_id"))
        or (scope == "agent" and key == query.get("agent", DEFAULT_AGENT))
    )


def test_the_corpus_has_enough_memories_in_every_scope():
    assert len(MEMORIES) >= 320
    scopes = Counter(memory["scope_type"] for memory in MEMORIES)
    assert scopes["global"] >= 35
    assert scopes["task"] >= 12
    assert scopes["agent"] >= 8
    projects = Counter(m["scope_key"] for m in MEMORIES if m["scope_type"] == "project")
    assert len(projects) == 5
    assert min(projects.values()) >= 40


def test_every_memory_is_well_formed():
    for memory in MEMORIES:
        assert MEMORY_FIELDS <= set(memory) <= MEMORY_FIELDS | MEMORY_OPTIONAL, memory["id"]
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", memory["id"]), memory["id"]
        assert memory["kind"] in KINDS, memory["id"]
        assert memory["scope_type"] in SCOPES, memory["id"]
        assert (memory["scope_key"] == "") == (memory["scope_type"] == "global"), memory["id"]
        assert memory["content"].strip(), memory["id"]
        assert isinstance(memory["tags"], list), memory["id"]
        assert all(isinstance(tag, str) and tag for tag in memory["tags"]), memory["id"]
        assert memory.get("agent", DEFAULT_AGENT) in AGENTS, memory["id"]
        if memory["scope_type"] == "agent":
            assert memory["scope_key"] in AGENTS, memory["id"]
            assert memory.get("agent") == memory["scope_key"], memory["id"]
        if memory["scope_type"] == "project":
            assert memory["scope_key"].startswith("github:"), memory["id"]


def test_memory_ids_are_unique_and_no_two_contents_are_equal():
    assert len(BY_ID) == len(MEMORIES)
    contents = Counter(memory["content"] for memory in MEMORIES)
    assert [text for text, n in contents.items() if n > 1] == []


def test_every_kind_appears_and_archives_and_hints_stay_few():
    kinds = Counter(memory["kind"] for memory in MEMORIES)
    assert set(kinds) == KINDS
    assert min(kinds.values()) >= 3
    assert 5 <= sum(1 for m in MEMORIES if m.get("archive")) <= 10
    hinted = sum(1 for m in MEMORIES if m.get("retrieval_hints"))
    assert hinted <= 0.05 * len(MEMORIES)


def test_key_chains_are_well_formed():
    grouped = chains()
    assert len(grouped) >= 12
    for key, chain in grouped.items():
        assert len(chain) >= 2, key
        assert not any(m.get("archive") or "expect_status" in m for m in chain), key
        # One writer per chain: a rewrite by someone else would be a dispute, not a change.
        assert len({m.get("agent") for m in chain}) == 1, key


def test_the_languages_are_mixed_as_described():
    memories = shares([memory["content"] for memory in MEMORIES])
    assert abs(memories["en"] - 0.45) <= 0.07, memories
    assert abs(memories["zh"] - 0.35) <= 0.07, memories
    assert abs(memories["mixed"] - 0.20) <= 0.07, memories
    queries = shares([query["query"] for query in QUERY_ROWS])
    assert abs(queries["en"] - 0.45) <= 0.07, queries
    assert abs(queries["zh"] - 0.40) <= 0.07, queries
    assert abs(queries["mixed"] - 0.15) <= 0.07, queries


def test_no_two_memories_are_near_duplicates_outside_a_key_chain():
    sets = {memory["id"]: tokens(memory["content"]) for memory in MEMORIES}
    close = []
    for a, b in combinations(sets, 2):
        if CHAIN_OF.get(a) and CHAIN_OF.get(a) == CHAIN_OF.get(b):
            continue
        union = sets[a] | sets[b]
        if union and len(sets[a] & sets[b]) / len(union) > 0.4:
            close.append((a, b))
    assert close == []


def test_no_sentence_or_project_is_shared_with_the_first_corpus():
    def sentences(text: str) -> set[str]:
        parts = (" ".join(part.lower().split()) for part in SENTENCE_END.split(text))
        return {part for part in parts if len(part) >= 12}

    def windows(text: str) -> set[str]:
        flat = " ".join(text.lower().split())
        return {flat[i : i + WINDOW] for i in range(len(flat) - WINDOW + 1)}

    first = load(FIRST_CORPUS)
    theirs = set().union(*(sentences(memory["content"]) for memory in first))
    assert [m["id"] for m in MEMORIES if sentences(m["content"]) & theirs] == []
    # Nor a long stretch of words inside a sentence.
    their_windows = set().union(*(windows(memory["content"]) for memory in first))
    assert [m["id"] for m in MEMORIES if windows(m["content"]) & their_windows] == []
    their_projects = {m["scope_key"] for m in first if m["scope_type"] == "project"}
    ours = {m["scope_key"] for m in MEMORIES if m["scope_type"] == "project"}
    assert not their_projects & ours


def test_nothing_looks_like_a_secret_or_an_instruction_to_ignore_rules():
    texts = [(m["id"], m["content"]) for m in MEMORIES]
    texts += [(q["query"], q["query"]) for q in QUERY_ROWS]
    found = [name for name, text in texts for pattern in SECRET_PATTERNS if pattern.search(text)]
    assert found == []


def test_there_are_enough_queries_in_every_category_and_split():
    assert len(QUERY_ROWS) >= 170
    per_category = Counter(query["category"] for query in QUERY_ROWS)
    assert set(per_category) == CATEGORIES
    assert min(per_category.values()) >= 14
    for category, total in per_category.items():
        splits = Counter(q["split"] for q in QUERY_ROWS if q["category"] == category)
        assert set(splits) == {"dev", "test"}, category
        assert min(splits.values()) >= 0.4 * total, category


def test_every_query_is_well_formed():
    tasks = {m["scope_key"] for m in MEMORIES if m["scope_type"] == "task"}
    projects = {m["scope_key"] for m in MEMORIES if m["scope_type"] == "project"}
    texts = Counter(query["query"] for query in QUERY_ROWS)
    assert [text for text, n in texts.items() if n > 1] == []
    for query in QUERY_ROWS:
        assert QUERY_FIELDS <= set(query) <= QUERY_FIELDS | QUERY_OPTIONAL, query["query"]
        assert query["split"] in {"dev", "test"}
        assert query.get("agent", DEFAULT_AGENT) in AGENTS
        assert query.get("project_key", next(iter(projects))) in projects
        assert query.get("task_id", next(iter(tasks))) in tasks


def test_every_listed_id_exists_and_relevant_and_forbidden_never_overlap():
    for query in QUERY_ROWS:
        listed = query["relevant"] + query.get("forbidden", [])
        assert [i for i in listed if i not in BY_ID] == [], query["query"]
        assert not set(query["relevant"]) & set(query.get("forbidden", [])), query["query"]
        assert len(set(query["relevant"])) == len(query["relevant"]), query["query"]


def test_only_no_answer_queries_have_no_relevant_memory():
    for query in QUERY_ROWS:
        assert (query["category"] == "no_answer") == (query["relevant"] == []), query["query"]
        if query["category"] == "multi_answer":
            assert 2 <= len(query["relevant"]) <= 3, query["query"]


def test_relevant_memories_are_readable_live_and_current():
    for query in QUERY_ROWS:
        for memory_id in query["relevant"]:
            memory = BY_ID[memory_id]
            assert readable(query, memory), (query["query"], memory_id)
            assert not memory.get("archive"), (query["query"], memory_id)
            assert memory_id not in SUPERSEDED, (query["query"], memory_id)


def test_forbidden_memories_lie_outside_what_the_query_may_read():
    for query in QUERY_ROWS:
        for memory_id in query.get("forbidden", []):
            assert not readable(query, BY_ID[memory_id]), (query["query"], memory_id)
            assert memory_id not in SUPERSEDED, (query["query"], memory_id)


def test_scope_traps_name_a_tempting_wrong_answer():
    for query in QUERY_ROWS:
        if query["category"] == "scope_trap":
            assert query.get("forbidden"), query["query"]


def test_supersession_queries_ask_for_the_head_of_a_chain():
    heads = {chain[-1]["id"] for chain in chains().values()}
    asked = set()
    for query in QUERY_ROWS:
        if query["category"] == "supersession":
            chained = [i for i in query["relevant"] if i in heads]
            assert chained, query["query"]
            asked |= {CHAIN_OF[i] for i in chained}
    assert len(asked) >= 12


def test_need_queries_are_english_and_chinese_queries_are_chinese():
    for query in QUERY_ROWS:
        if query["category"] == "need":
            assert language(query["query"]) == "en", query["query"]
            assert all(language(BY_ID[i]["content"]) == "en" for i in query["relevant"])
        if query["category"] == "chinese":
            assert language(query["query"]) != "en", query["query"]
            assert all(language(BY_ID[i]["content"]) != "en" for i in query["relevant"])


def test_cross_language_queries_share_no_word_with_their_answer():
    directions = Counter()
    for query in QUERY_ROWS:
        if query["category"] != "cross_language":
            continue
        asked_in_english = language(query["query"]) == "en"
        directions[asked_in_english] += 1
        for memory_id in query["relevant"]:
            content = BY_ID[memory_id]["content"]
            assert (language(content) == "en") != asked_in_english, query["query"]
            assert not tokens(query["query"]) & tokens(content), query["query"]
    assert min(directions[True], directions[False]) >= 0.4 * sum(directions.values())
