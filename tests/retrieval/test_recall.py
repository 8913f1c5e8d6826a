"""Recall through the service: channels, Chinese, scope, supersession, abstention, paging."""

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode
from memories.models import Memory
from memories.retrieval import recall
from memories.services import memory_archive, memory_remember
from tests.memories.helpers import raises

pytestmark = pytest.mark.django_db


def remember(actor, content, kind="fact", **fields):
    return memory_remember(actor=actor, content=content, kind=kind, **fields).id


def ids(result):
    return [item.id for item in result.memories]


@pytest.fixture
def store(owner_actor, agent_actor, other_agent_actor):
    m = {}
    m["pnpm"] = remember(
        owner_actor,
        "The web app uses pnpm; never run npm install there",
        "constraint",
        scope_type="project",
        scope_key="github:acme/web",
    )
    m["api_db"] = remember(
        owner_actor,
        "The API stores sessions in PostgreSQL 16",
        scope_type="project",
        scope_key="github:acme/api",
    )
    m["web_db"] = remember(
        owner_actor,
        "The web app stores sessions in Redis",
        scope_type="project",
        scope_key="github:acme/web",
    )
    m["cache"] = remember(agent_actor, "我们用 Redis 做缓存，过期时间是十分钟", "decision")
    m["branch"] = remember(
        agent_actor,
        "发布分支命名为 release/年份-月份",
        "procedure",
        scope_type="project",
        scope_key="github:acme/api",
    )
    m["image"] = remember(
        owner_actor, "Docker 镜像推送到 registry.acme.test，不要推到 Docker Hub", "constraint"
    )
    m["tabs"] = remember(
        owner_actor,
        "I prefer tabs over spaces in Go code",
        "preference",
        tags=["formatting", "golang"],
        retrieval_hints=["indentation style", "代码缩进"],
    )
    m["codex_note"] = remember(
        other_agent_actor, "Codex sandbox has no network access", scope_type="agent"
    )
    m["mine"] = remember(
        agent_actor, "Claude Code runs hooks from .claude/settings.json", scope_type="agent"
    )
    return m


def test_finds_a_memory_from_how_an_agent_phrases_its_need(agent_actor, store):
    result = recall(
        actor=agent_actor,
        query="how should I install packages for the web app?",
        project_key="github:acme/web",
    )
    assert ids(result)[0] == store["pnpm"]
    assert result.no_confident_match is False


@pytest.mark.parametrize(
    ("query", "expected"), [("缓存", "cache"), ("分支", "branch"), ("镜像", "image")]
)
def test_two_character_chinese_words_match(agent_actor, store, query, expected):
    result = recall(actor=agent_actor, query=query, project_key="github:acme/api")
    assert ids(result)[0] == store[expected]


def test_mixed_language_query(agent_actor, store):
    result = recall(actor=agent_actor, query="Redis 缓存 过期时间")
    assert ids(result)[0] == store["cache"]


def test_tags_and_hints_are_a_channel(agent_actor, store):
    result = recall(actor=agent_actor, query="代码缩进")
    assert ids(result)[0] == store["tabs"]
    assert "hints" in result.memories[0].channels


def test_exact_key_channel(owner_actor, agent_actor):
    target = remember(owner_actor, "Deploys happen on Tuesdays", "decision", key="deploy-day")
    result = recall(actor=agent_actor, query="deploy-day")
    assert ids(result)[0] == target and result.memories[0].channels["key"] == 1


def test_recall_never_crosses_into_another_project(agent_actor, store):
    result = recall(
        actor=agent_actor, query="where are sessions stored", project_key="github:acme/api"
    )
    assert store["api_db"] in ids(result)
    assert store["web_db"] not in ids(result) and store["pnpm"] not in ids(result)
    assert all(item.scope_key in ("", "github:acme/api", "claude-code") for item in result.memories)


def test_without_a_project_only_global_and_own_agent_notes(agent_actor, store):
    result = recall(actor=agent_actor, query="sessions stored hooks sandbox network")
    scopes = {(item.scope_type, item.scope_key) for item in result.memories}
    assert scopes <= {("global", ""), ("agent", "claude-code")}
    assert store["mine"] in ids(result) and store["codex_note"] not in ids(result)


def test_task_scope_only_for_the_given_task(owner_actor, agent_actor):
    mine = remember(
        owner_actor,
        "Step 3 of the migration is backfilling emails",
        "task_state",
        scope_type="task",
        scope_key="task-42",
    )
    other = remember(
        owner_actor,
        "Step 3 of the rollout is flipping the flag",
        "task_state",
        scope_type="task",
        scope_key="task-43",
    )
    result = recall(actor=agent_actor, query="what is step 3", task_id="task-42")
    assert mine in ids(result) and other not in ids(result)


def test_superseded_ranks_below_its_successor_and_archived_is_excluded(owner_actor, agent_actor):
    old = remember(agent_actor, "The staging database is PostgreSQL 14 on db1", key="staging-db")
    new = remember(
        agent_actor, "The staging database moved to PostgreSQL 16 on db2", key="staging-db"
    )
    gone = remember(agent_actor, "The staging database password rotates monthly via vault")
    memory_archive(actor=agent_actor, memory_id=gone)
    result = recall(actor=agent_actor, query="staging database PostgreSQL 14 db1")
    order = ids(result)
    assert order.index(new) < order.index(old)
    assert gone not in order


def test_disputed_and_private_memories_stay_out_of_agent_recall(
    owner_actor, agent_actor, make_token
):
    remember(owner_actor, "Release day is Tuesday", "decision", key="release-day")
    disputed = memory_remember(
        actor=agent_actor, content="Release day is Friday", kind="decision", key="release-day"
    )
    private = remember(owner_actor, "My release-day babysitter is Ana", visibility="private")
    result = recall(actor=agent_actor, query="release day")
    assert disputed.id not in ids(result) and private not in ids(result)
    token, _ = make_token("assistant", scopes=["memories:read", "private:read"])
    assert private in ids(recall(actor=Actor.agent(token), query="release day babysitter"))


def test_no_confident_match_when_nothing_is_about_the_query(agent_actor, store):
    result = recall(actor=agent_actor, query="what is the office wifi name for visitors?")
    assert result.no_confident_match is True


def test_receipt_names_channels_ranks_and_counts(agent_actor, store):
    result = recall(actor=agent_actor, query="tabs formatting")
    first = result.memories[0].as_dict()
    assert first["channels"] and all(rank >= 1 for rank in first["channels"].values())
    assert (
        set(result.retrieval["candidates"]) >= {"fused"}
        and "fulltext" in result.retrieval["channels"]
    )
    # The packaged model is installed, so the semantic channel is on and healthy.
    assert result.retrieval["channels_unavailable"] == [] and result.retrieval["degraded"] == []


def test_paging_with_a_cursor_bound_to_query_actor_and_scope(
    agent_actor, other_agent_actor, owner_actor
):
    for index in range(7):
        remember(owner_actor, f"Runbook step {index}: check the deploy dashboard")
    first = recall(actor=agent_actor, query="runbook deploy dashboard", limit=3)
    second = recall(
        actor=agent_actor, query="runbook deploy dashboard", limit=3, cursor=first.next_cursor
    )
    third = recall(
        actor=agent_actor, query="runbook deploy dashboard", limit=3, cursor=second.next_cursor
    )
    seen = ids(first) + ids(second) + ids(third)
    assert len(seen) == 7 == len(set(seen)) and third.next_cursor is None
    for mismatch in (
        {"actor": agent_actor, "query": "another question"},
        {"actor": other_agent_actor, "query": "runbook deploy dashboard"},
        {
            "actor": agent_actor,
            "query": "runbook deploy dashboard",
            "project_key": "github:acme/web",
        },
    ):
        with raises(ErrorCode.VALIDATION_ERROR):
            recall(cursor=first.next_cursor, limit=3, **mismatch)
    with raises(ErrorCode.VALIDATION_ERROR):
        recall(
            actor=agent_actor,
            query="runbook deploy dashboard",
            cursor=first.next_cursor[:-2] + "xx",
        )


@pytest.mark.parametrize(
    "fields",
    [
        {"query": ""},
        {"query": "x" * 1001},
        {"limit": 0},
        {"limit": 101},
        {"kinds": ["opinion"]},
        {"alt_queries": ["ok"] * 6},
        {"project_key": " "},
    ],
)
def test_bad_requests_are_validation_errors(agent_actor, fields):
    fields.setdefault("query", "anything")
    with raises(ErrorCode.VALIDATION_ERROR):
        recall(actor=agent_actor, **fields)


def test_restricted_token_cannot_recall_another_project(make_token):
    token, _ = make_token("cursor", allowed_projects=["github:acme/web"])
    with raises(ErrorCode.FORBIDDEN):
        recall(actor=Actor.agent(token), query="anything", project_key="github:acme/api")


def test_recall_counts_access_without_touching_updated_at(
    agent_actor, store, django_capture_on_commit_callbacks
):
    before = Memory.objects.get(pk=store["image"])
    with django_capture_on_commit_callbacks(execute=True):
        recall(actor=agent_actor, query="镜像")
    after = Memory.objects.get(pk=store["image"])
    assert after.access_count == before.access_count + 1 and after.last_accessed_at is not None
    assert after.updated_at == before.updated_at


def test_kinds_filter(agent_actor, store):
    result = recall(actor=agent_actor, query="Redis", kinds=["decision"])
    assert ids(result) == [store["cache"]]


def test_alt_queries_bridge_languages(agent_actor, store):
    result = recall(
        actor=agent_actor,
        query="which container registry do we push to?",
        alt_queries=["镜像 推送"],
    )
    assert ids(result)[0] == store["image"]


def test_apostrophes_and_quotes_in_queries_are_plain_text(agent_actor, owner_actor):
    target = remember(
        owner_actor, "Docker isn't available in the sandbox; run tests with make test-local"
    )
    for query in ["docker isn't available", 'the "sandbox" tests', "it's O'Brien's \\ sandbox"]:
        result = recall(actor=agent_actor, query=query)
        assert target in ids(result)


def test_concepts_bridge_english_and_chinese(owner_actor, agent_actor):
    english = remember(
        owner_actor,
        "The query cache TTL is one hour",
        scope_type="project",
        scope_key="github:acme/api",
    )
    chinese = remember(
        owner_actor,
        "前端的界面文案都放在 src/locales 里，不要写死",
        "constraint",
        scope_type="project",
        scope_key="github:acme/web",
    )
    found = recall(actor=agent_actor, query="缓存过期时间是多少", project_key="github:acme/api")
    assert ids(found)[0] == english and found.no_confident_match is False
    found = recall(
        actor=agent_actor,
        query="where do UI strings for translation live?",
        project_key="github:acme/web",
    )
    assert ids(found)[0] == chinese


def test_a_concept_is_one_unit_of_the_query():
    from memories.retrieval.concepts import query_units, single_term

    units = query_units("how big can a pull request be")
    concepts = [unit for unit in units if single_term(unit) is None]
    assert len(concepts) == 1
    assert ("pull", "request") in concepts[0] and ("pr",) in concepts[0]
    assert any("请求" in alternative and "合并" in alternative for alternative in concepts[0])
    assert [single_term(unit) for unit in units if single_term(unit)] == ["big"]


def test_an_old_version_never_comes_back_without_its_successor(agent_actor):
    old = remember(agent_actor, "Error replies are written in English", key="reply-language")
    new = remember(agent_actor, "Answer the user in Chinese from now on", key="reply-language")
    result = recall(actor=agent_actor, query="error messages English")
    order = ids(result)
    assert old in order and new in order and order.index(new) < order.index(old)
    assert "successor" in result.memories[order.index(new)].channels
