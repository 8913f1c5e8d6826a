"""Context packs, bootstrap and multi-step queries."""

import pytest

from foundation.errors import ErrorCode
from memories.retrieval import bootstrap, context_pack, multi_query
from memories.retrieval.context import HEADER, estimate_tokens
from memories.services import memory_remember
from tests.memories.helpers import raises

pytestmark = pytest.mark.django_db
PROJECT = "github:acme/api"


def remember(actor, content, kind="fact", **fields):
    return memory_remember(actor=actor, content=content, kind=kind, **fields).id


@pytest.fixture
def project(owner_actor, agent_actor):
    ids = {
        "lint": remember(
            owner_actor,
            "CI runs make lint and make test; both must pass before merge",
            "constraint",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "py": remember(
            owner_actor,
            "The API targets Python 3.12 and Django 6",
            "decision",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "style": remember(
            owner_actor, "I prefer small focused pull requests", "preference", trust="locked"
        ),
        "ruff": remember(
            agent_actor,
            "Ruff replaced flake8 and isort in the API repo",
            "lesson",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "deploy": remember(
            agent_actor,
            "Deploying the API: run make release then tag vX.Y.Z",
            "procedure",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "incident": remember(
            agent_actor,
            "The March outage was caused by a full disk on db1",
            "event",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "release_event": remember(
            agent_actor,
            "Release 2.3 of the API went out on May 2",
            "event",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "release_howto": remember(
            agent_actor,
            "To release the API, run make release",
            "procedure",
            scope_type="project",
            scope_key=PROJECT,
        ),
        "other": remember(
            owner_actor,
            "The web app lint step uses eslint",
            "constraint",
            scope_type="project",
            scope_key="github:acme/web",
        ),
        "中文": remember(owner_actor, "提交信息用中文写也可以，但标题要简短", "preference"),
    }
    return ids


def test_context_pack_fits_whole_memories_into_the_budget(agent_actor, project):
    pack = context_pack(
        actor=agent_actor,
        query="what must pass before I merge?",
        project_key=PROJECT,
        token_budget=2000,
    )
    assert pack.items[0]["id"] == project["lint"]
    assert pack.context.startswith(HEADER)
    assert pack.budget["used"] == estimate_tokens(pack.context)
    assert pack.budget["used"] + pack.budget["remaining"] == 2000
    assert project["other"] not in [item["id"] for item in pack.items + pack.omitted]


def test_context_pack_omits_what_does_not_fit_and_says_why(agent_actor, project):
    small = context_pack(
        actor=agent_actor, query="what do I run with make?", project_key=PROJECT, token_budget=60
    )
    assert small.budget["used"] <= 60
    assert any("over budget" in item["reason"] for item in small.omitted)
    capped = context_pack(
        actor=agent_actor, query="what do I run with make?", project_key=PROJECT, max_memories=1
    )
    assert len(capped.items) == 1 and any(
        item["reason"] == "max_memories reached" for item in capped.omitted
    )


def test_same_store_and_request_give_byte_identical_context(agent_actor, project):
    first = context_pack(
        actor=agent_actor, query="how do I deploy and what must pass", project_key=PROJECT
    )
    second = context_pack(
        actor=agent_actor, query="how do I deploy and what must pass", project_key=PROJECT
    )
    assert first.as_dict() == second.as_dict()
    assert first.context.encode() == second.context.encode()


def test_purpose_weighs_kinds(agent_actor, project):
    query = "API release"
    coding = context_pack(actor=agent_actor, query=query, project_key=PROJECT, purpose="coding")
    research = context_pack(actor=agent_actor, query=query, project_key=PROJECT, purpose="research")
    coding_ids = [item["id"] for item in coding.items]
    research_ids = [item["id"] for item in research.items]
    assert coding_ids.index(project["release_howto"]) < coding_ids.index(project["release_event"])
    assert research_ids.index(project["release_event"]) < research_ids.index(
        project["release_howto"]
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"purpose": "fun"},
        {"token_budget": 10},
        {"token_budget": 10**6},
        {"max_memories": 0},
        {"query": ""},
    ],
)
def test_context_pack_rejects_bad_requests(agent_actor, fields):
    fields.setdefault("query", "anything")
    with raises(ErrorCode.VALIDATION_ERROR):
        context_pack(actor=agent_actor, **fields)


def test_bootstrap_gives_core_constraints_decisions_and_lessons_for_the_project(
    agent_actor, project
):
    result = bootstrap(actor=agent_actor, project_key=PROJECT)
    sections = {item["id"]: item["section"] for item in result.items}
    assert sections[project["lint"]] == "constraints"
    assert sections[project["style"]] == "core"
    assert sections[project["py"]] == "decisions"
    assert sections[project["ruff"]] == "lessons"
    assert project["other"] not in sections and project["incident"] not in sections
    assert (
        result.budget["used"] == estimate_tokens(result.context)
        and not result.budget["over_budget"]
    )


def test_bootstrap_is_byte_stable_and_lists_what_it_dropped_within_the_budget(
    owner_actor, agent_actor, project
):
    for index in range(40):
        remember(
            owner_actor,
            f"Confirmed fact number {index} about the deployment environment",
            trust="confirmed",
            scope_type="project",
            scope_key=PROJECT,
        )
    first = bootstrap(actor=agent_actor, project_key=PROJECT, token_budget=300)
    second = bootstrap(actor=agent_actor, project_key=PROJECT, token_budget=300)
    assert first.context.encode() == second.context.encode()
    assert first.dropped_ids and "Not shown" in first.context.splitlines()[-1]
    assert first.budget["used"] <= 300 and estimate_tokens(first.context) == first.budget["used"]


def test_bootstrap_keeps_every_constraint_even_over_budget(owner_actor, agent_actor):
    for index in range(12):
        remember(
            owner_actor,
            f"Constraint {index}: never deploy service {index} on Fridays without a rollback plan",
            "constraint",
            scope_type="project",
            scope_key=PROJECT,
        )
    result = bootstrap(actor=agent_actor, project_key=PROJECT, token_budget=100)
    assert sum(1 for item in result.items if item["section"] == "constraints") == 12
    assert result.budget["over_budget"] is True


def test_multi_query_splits_and_judges_sufficiency(agent_actor, project):
    result = multi_query(
        actor=agent_actor,
        query="what must pass before merge and how do I deploy the API",
        project_key=PROJECT,
    )
    assert len(result.steps) == 2 and result.sufficiency == "sufficient"
    evidence = {item["id"] for item in result.evidence}
    assert {project["lint"], project["deploy"]} <= evidence


def test_multi_query_in_chinese_and_partial_answers(agent_actor, project):
    result = multi_query(
        actor=agent_actor, query="提交信息的写法，以及办公室的无线网络密码", project_key=PROJECT
    )
    assert result.sufficiency == "partial"
    assert any("no confident match" in reason for reason in result.fallback)


def test_multi_query_never_widens_scope(agent_actor, project):
    result = multi_query(
        actor=agent_actor,
        query="lint",
        subqueries=["lint step", "eslint"],
        project_key=PROJECT,
        include_history=True,
    )
    assert project["other"] not in {item["id"] for item in result.evidence}


def test_multi_query_respects_max_steps(agent_actor, project):
    result = multi_query(
        actor=agent_actor,
        query="x",
        subqueries=["lint", "deploy", "python"],
        max_steps=2,
        project_key=PROJECT,
    )
    assert len(result.steps) == 2 and any("first 2" in reason for reason in result.fallback)
