"""memory_remember: gates, trust, duplicates, keyed writes, idempotency, reports."""

import json

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory, MemoryEvent, MemoryLink, Relation, ReviewProposal
from tests.memories.helpers import raises, remember, row_counts

pytestmark = pytest.mark.django_db


def test_owner_write_is_confirmed_and_recorded_as_created(owner_actor):
    receipt = remember(owner_actor)
    memory = Memory.objects.get(pk=receipt.id)
    assert (receipt.version, receipt.trust, receipt.status) == (1, "confirmed", "active")
    assert receipt.evolution == {"action": "created", "version": 1, "supersedes": None}
    assert memory.origin == "user" and memory.source_agent == ""
    assert list(
        MemoryEvent.objects.filter(memory_id=memory.pk).values_list("event_type", flat=True)
    ) == ["created"]


def test_agent_write_is_inferred_and_carries_the_tokens_agent_name(agent_actor):
    receipt = remember(agent_actor)
    memory = Memory.objects.get(pk=receipt.id)
    assert memory.trust == "inferred"
    assert (memory.origin, memory.source_agent, memory.created_by_token) == (
        "agent",
        "claude-code",
        agent_actor.token,
    )
    event = MemoryEvent.objects.get(memory_id=memory.pk)
    assert (event.actor_agent, event.actor_token) == ("claude-code", agent_actor.token)


def test_agent_may_write_observed(agent_actor):
    assert remember(agent_actor, trust="observed").trust == "observed"


@pytest.mark.parametrize("trust", ["confirmed", "locked"])
def test_agent_cannot_write_owner_trust_levels(agent_actor, trust):
    with raises(ErrorCode.FORBIDDEN):
        remember(agent_actor, trust=trust)
    assert row_counts() == (0, 0, 0)


def test_type_follows_kind_unless_given(owner_actor):
    assert (
        Memory.objects.get(pk=remember(owner_actor, "Deployed v2 on Friday", "event").id).type
        == "episodic"
    )
    assert (
        Memory.objects.get(pk=remember(owner_actor, "Run make release", "procedure").id).type
        == "procedural"
    )
    assert (
        Memory.objects.get(pk=remember(owner_actor, "Ada is the tech lead", "fact").id).type
        == "semantic"
    )
    explicit = remember(owner_actor, "Release checklist lives in docs/", "fact", type="procedural")
    assert Memory.objects.get(pk=explicit.id).type == "procedural"


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "opinion"},
        {"type": "dream"},
        {"scope_type": "galaxy", "scope_key": "x"},
        {"write_mode": "append", "key": "k"},
        {"write_mode": "merge", "key": "k"},
        {"scope_type": "project"},
        {"scope_type": "global", "scope_key": "github:acme/api"},
        {"key": " "},
        {"key": "k" * 201},
        {"value": ["not", "an", "object"]},
        {"expected_version": 1},
        {"key": "k", "expected_version": -1},
        {"key": "k", "expected_version": True},
        {"tags": "python"},
        {"tags": [f"t{i}" for i in range(21)]},
        {"retrieval_hints": ["x" * 301]},
        {"confidence": 0.8},
        {"confidence_basis": "agent_inferred"},
        {"confidence": 1.5, "confidence_basis": "agent_inferred"},
        {"confidence": 0.5, "confidence_basis": "gut_feeling"},
        {"idempotency_key": ""},
        {"content": "nul \x00 inside"},
        {"value": {"k\x00": "v"}, "key": "k"},
        {"tags": ["a\x00b"]},
    ],
)
def test_invalid_input_is_a_validation_error_and_writes_nothing(owner_actor, fields):
    kind = fields.pop("kind", "preference")
    content = fields.pop("content", "Use uv to manage Python environments.")
    with raises(ErrorCode.VALIDATION_ERROR):
        remember(owner_actor, content=content, kind=kind, **fields)
    assert row_counts() == (0, 0, 0)


@pytest.mark.parametrize("content", ["", "   ", "长" * 4001, "x" * 4001])
def test_size_gate_rejects_empty_and_over_4000_characters(owner_actor, content):
    with raises(ErrorCode.VALIDATION_ERROR):
        remember(owner_actor, content=content)
    assert Memory.objects.count() == 0


def test_content_of_exactly_4000_chinese_characters_is_accepted(owner_actor):
    receipt = remember(owner_actor, content="记" * 4000)
    assert len(Memory.objects.get(pk=receipt.id).content) == 4000


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"content": "The deploy key is AKIAIOSFODNN7EXAMPLE for prod"}, "aws_access_key"),
        ({"content": "记住：我的 token 是 cont_pat_" + "a1B2c3D4e5" * 4}, "continuity_token"),
        (
            {"content": "Send Authorization: Bearer abcdef0123456789abcdef to the API"},
            "authorization_header",
        ),
        (
            {
                "content": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
            },
            "private_key_block",
        ),
        ({"value": {"db": {"password": "s3cr3t-Pa55word!"}}, "key": "db"}, "password_assignment"),
    ],
)
def test_secret_gate_rejects_credentials_without_echoing_them(owner_actor, fields, rule):
    fields.setdefault("content", "Database settings for the staging stack")
    with pytest.raises(ServiceError) as caught:
        remember(owner_actor, **fields)
    error = caught.value
    assert error.code == ErrorCode.SECRET_REJECTED
    assert rule in error.message
    envelope = str(error.as_envelope())
    for secret in ("AKIAIOSFODNN7EXAMPLE", "a1B2c3D4e5", "abcdef0123456789", "b3BlbnNz", "s3cr3t"):
        assert secret not in envelope
    assert row_counts() == (0, 0, 0)


def test_exact_duplicate_returns_the_existing_memory_and_writes_nothing(
    agent_actor, other_agent_actor
):
    first = remember(agent_actor, content="Use uv to manage Python environments.")
    counts = row_counts()
    again = remember(other_agent_actor, content="  use UV to manage   python environments ")
    assert again.id == first.id and again.duplicate_of == first.id
    assert again.evolution["action"] == "duplicate"
    assert row_counts() == counts


def test_the_same_statement_in_another_scope_is_a_separate_memory(owner_actor):
    first = remember(owner_actor, content="Run tests with pytest -x")
    second = remember(
        owner_actor,
        content="Run tests with pytest -x",
        scope_type="project",
        scope_key="github:acme/api",
    )
    assert first.id != second.id and second.duplicate_of is None


def test_keyed_replace_creates_the_next_version_and_supersedes_the_previous(owner_actor):
    first = remember(owner_actor, content="Node 20 is the runtime", kind="fact", key="runtime")
    second = remember(owner_actor, content="Node 22 is the runtime", kind="fact", key="runtime")
    assert second.evolution == {"action": "replaced", "version": 2, "supersedes": first.id}
    old, new = Memory.objects.get(pk=first.id), Memory.objects.get(pk=second.id)
    assert (old.status, new.status, new.version, new.supersedes_id) == (
        "superseded",
        "active",
        2,
        old.pk,
    )
    assert MemoryLink.objects.filter(
        from_memory=new, to_memory=old, relation=Relation.SUPERSEDES
    ).exists()
    assert MemoryEvent.objects.filter(memory_id=old.pk, event_type="superseded").count() == 1


def test_keyed_write_with_identical_content_and_value_changes_nothing(owner_actor):
    first = remember(owner_actor, content="Node 22", kind="fact", key="runtime", value={"node": 22})
    counts = row_counts()
    again = remember(owner_actor, content="Node 22", kind="fact", key="runtime", value={"node": 22})
    assert again.id == first.id and again.evolution["action"] == "unchanged"
    assert row_counts() == counts


def test_merge_mode_deep_merges_objects_and_replaces_arrays_and_scalars(agent_actor):
    remember(
        agent_actor,
        content="Editor settings",
        kind="preference",
        key="editor",
        value={"font": {"family": "Fira Code", "size": 13}, "plugins": ["vim"], "theme": "dark"},
    )
    receipt = remember(
        agent_actor,
        content="Editor settings",
        kind="preference",
        key="editor",
        write_mode="merge",
        value={"font": {"size": 14}, "plugins": ["copilot"], "theme": None, "wrap": True},
    )
    memory = Memory.objects.get(pk=receipt.id)
    assert receipt.evolution["action"] == "merged" and memory.version == 2
    assert memory.value == {
        "font": {"family": "Fira Code", "size": 14},
        "plugins": ["copilot"],
        "wrap": True,
    }


def test_expected_version_zero_only_creates(owner_actor):
    remember(owner_actor, content="Port 8000", kind="fact", key="port", expected_version=0)
    with raises(ErrorCode.VERSION_CONFLICT) as caught:
        remember(owner_actor, content="Port 9000", kind="fact", key="port", expected_version=0)
    assert caught.value.details == [{"field": "expected_version", "expected": 0, "actual": 1}]
    assert Memory.objects.get(key="port").content == "Port 8000"


def test_expected_version_mismatch_is_a_conflict_and_writes_nothing(owner_actor):
    remember(owner_actor, content="Port 8000", kind="fact", key="port")
    remember(owner_actor, content="Port 8080", kind="fact", key="port", expected_version=1)
    counts = row_counts()
    with raises(ErrorCode.VERSION_CONFLICT):
        remember(owner_actor, content="Port 9090", kind="fact", key="port", expected_version=1)
    assert row_counts() == counts
    assert Memory.objects.get(key="port", status="active").content == "Port 8080"


def test_idempotent_replay_returns_the_original_receipt_and_writes_nothing(agent_actor):
    first = remember(agent_actor, content="Prefer ruff over flake8", idempotency_key="req-1")
    counts = row_counts()
    replay = remember(agent_actor, content="Prefer ruff over flake8", idempotency_key="req-1")
    assert replay == first
    assert row_counts() == counts


def test_idempotency_key_reused_for_another_request_is_refused(agent_actor):
    remember(agent_actor, content="Prefer ruff over flake8", idempotency_key="req-1")
    counts = row_counts()
    with raises(ErrorCode.IDEMPOTENCY_CONFLICT):
        remember(agent_actor, content="Prefer black over ruff", idempotency_key="req-1")
    assert row_counts() == counts


def test_idempotency_keys_belong_to_one_caller(agent_actor, other_agent_actor):
    first = remember(agent_actor, content="Prefer ruff", idempotency_key="same")
    second = remember(other_agent_actor, content="Prefer mypy strict mode", idempotency_key="same")
    assert first.id != second.id and Memory.objects.count() == 2


@pytest.mark.parametrize("trust_action", ["confirmed", "locked"])
def test_agent_overwrite_of_an_owner_trusted_memory_becomes_a_disputed_contradiction(
    owner_actor, agent_actor, trust_action
):
    owned = remember(
        owner_actor,
        content="Deploy on Tuesdays",
        kind="decision",
        key="deploy-day",
        trust=trust_action,
    )
    receipt = remember(agent_actor, content="Deploy on Fridays", kind="decision", key="deploy-day")
    assert receipt.status == "disputed" and receipt.evolution["action"] == "disputed"
    assert receipt.contradictions[0]["id"] == owned.id
    original = Memory.objects.get(pk=owned.id)
    assert (original.status, original.content, original.version) == (
        "active",
        "Deploy on Tuesdays",
        1,
    )
    assert MemoryLink.objects.filter(
        from_memory_id=receipt.id, to_memory=original, relation=Relation.CONTRADICTS
    ).exists()


def test_agent_overwrite_with_expected_version_still_cannot_replace_a_locked_memory(
    owner_actor, agent_actor
):
    owned = remember(
        owner_actor, content="Deploy on Tuesdays", kind="decision", key="deploy-day", trust="locked"
    )
    receipt = remember(
        agent_actor, content="Deploy daily", kind="decision", key="deploy-day", expected_version=1
    )
    assert receipt.status == "disputed"
    assert Memory.objects.get(pk=owned.id).status == "active"


def test_agent_replaces_an_agent_written_memory(agent_actor, other_agent_actor):
    first = remember(agent_actor, content="CI runs on GitHub Actions", kind="fact", key="ci")
    second = remember(other_agent_actor, content="CI runs on Buildkite", kind="fact", key="ci")
    assert second.evolution["action"] == "replaced" and second.evolution["supersedes"] == first.id


def test_owner_replacing_a_locked_memory_keeps_it_locked(owner_actor):
    remember(
        owner_actor, content="Deploy on Tuesdays", kind="decision", key="deploy-day", trust="locked"
    )
    receipt = remember(
        owner_actor, content="Deploy on Wednesdays", kind="decision", key="deploy-day"
    )
    assert receipt.trust == "locked" and receipt.version == 2


def test_a_rewording_is_answered_by_the_memory_it_repeats(agent_actor):
    base = remember(agent_actor, content="Always use tabs for indentation in the Go services")
    near = remember(agent_actor, content="Always use tabs for indentation in Go services")
    assert near.evolution["action"] == "duplicate" and near.id == base.id
    assert near.duplicate_of == base.id
    assert [(item["id"], item["relation"], item["action"]) for item in near.relations] == [
        (base.id, "duplicate", "returned")
    ]
    assert Memory.objects.count() == 1
    assert MemoryEvent.objects.filter(memory_id=base.id, event_type="corroborated").count() == 1


def test_a_contradiction_between_agent_memories_is_linked_and_raised_never_blocked(agent_actor):
    base = remember(agent_actor, content="Always use tabs for indentation in the Go services")
    opposite = remember(agent_actor, content="Never use tabs for indentation in the Go services")
    assert opposite.evolution["action"] == "created" and opposite.status == "active"
    (relation,) = opposite.relations
    assert (relation["id"], relation["relation"], relation["action"]) == (
        base.id, "contradicts", "proposed",
    )  # fmt: skip
    assert relation["signals"] and base.id in [item["id"] for item in opposite.contradictions]
    assert MemoryLink.objects.filter(
        from_memory_id=opposite.id, to_memory_id=base.id, relation="contradicts"
    ).exists()
    proposal = ReviewProposal.objects.get(kind="conflict")
    assert sorted(proposal.memory_ids) == sorted([base.id, opposite.id])


def test_a_change_cue_between_agent_memories_retires_the_old_one(agent_actor):
    base = remember(agent_actor, content="我们使用 Redis 做缓存", kind="decision")
    newer = remember(agent_actor, content="我们不再使用 Redis 做缓存", kind="decision")
    (relation,) = newer.relations
    assert (relation["id"], relation["relation"], relation["action"]) == (
        base.id, "supersedes", "superseded",
    )  # fmt: skip
    assert Memory.objects.get(pk=base.id).status == "superseded"
    assert MemoryEvent.objects.filter(memory_id=base.id, event_type="superseded").exists()


def test_confidence_needs_a_basis_and_user_asserted_is_only_for_the_owner(owner_actor, agent_actor):
    receipt = remember(agent_actor, confidence=0.7, confidence_basis="agent_inferred")
    memory = Memory.objects.get(pk=receipt.id)
    assert (memory.confidence, memory.confidence_basis) == (0.7, "agent_inferred")
    with raises(ErrorCode.FORBIDDEN):
        remember(
            agent_actor, content="I like green", confidence=1.0, confidence_basis="user_asserted"
        )
    owned = remember(
        owner_actor, content="I like green", confidence=1.0, confidence_basis="user_asserted"
    )
    assert Memory.objects.get(pk=owned.id).confidence_basis == "user_asserted"


def test_agent_scope_defaults_to_the_agents_own_name(agent_actor):
    receipt = remember(agent_actor, content="My sandbox has no network", scope_type="agent")
    assert Memory.objects.get(pk=receipt.id).scope_key == "claude-code"
    with raises(ErrorCode.FORBIDDEN):
        remember(agent_actor, content="Codex notes", scope_type="agent", scope_key="codex")


def test_project_restricted_token_writes_only_its_projects(make_token):
    token, _ = make_token("cursor", allowed_projects=["github:acme/web"])
    actor = Actor.agent(token)
    remember(
        actor,
        content="Uses Next.js",
        kind="fact",
        scope_type="project",
        scope_key="github:acme/web",
    )
    with raises(ErrorCode.FORBIDDEN):
        remember(
            actor,
            content="Uses Django",
            kind="fact",
            scope_type="project",
            scope_key="github:acme/api",
        )


def test_private_memories_need_the_private_scope(agent_actor, make_token):
    with raises(ErrorCode.FORBIDDEN):
        remember(agent_actor, visibility="private")
    token, _ = make_token("assistant", scopes=["memories:read", "memories:write", "private:read"])
    receipt = remember(
        Actor.agent(token), content="My doctor is Dr. Chen", kind="fact", visibility="private"
    )
    assert Memory.objects.get(pk=receipt.id).visibility == "private"


def test_a_read_only_token_cannot_remember(make_token):
    token, _ = make_token("reader", scopes=["memories:read"])
    with raises(ErrorCode.FORBIDDEN):
        remember(Actor.agent(token))
    assert Memory.objects.count() == 0


def test_agents_cannot_claim_another_origin(agent_actor):
    with raises(ErrorCode.VALIDATION_ERROR):
        remember(agent_actor, origin="user")


def test_mixed_language_content_round_trips(agent_actor):
    content = "在 repo github:acme/api 里用 pnpm，不要用 npm（CI 会失败）"
    receipt = remember(agent_actor, content=content, kind="constraint", tags=["前端", "PNPM"])
    memory = Memory.objects.get(pk=receipt.id)
    assert memory.content == content and memory.tags == ["前端", "pnpm"]


def test_a_huge_tag_list_is_refused_before_any_work_on_it(agent_actor):
    from foundation.errors import ErrorCode, ServiceError
    from memories.services import memory_remember

    with pytest.raises(ServiceError) as caught:
        memory_remember(
            actor=agent_actor, content="Use uv.", kind="preference", tags=["uv"] * 20_000
        )
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    assert caught.value.details[0]["field"] == "tags"


def test_merges_cannot_grow_a_value_past_its_size_limit(agent_actor):
    from foundation.errors import ErrorCode, ServiceError
    from memories.models import Memory
    from memories.services import memory_remember
    from memories.values import MAX_VALUE_BYTES

    chunk = "x" * (MAX_VALUE_BYTES // 3)
    first = memory_remember(
        actor=agent_actor, content="Deploy settings.", kind="fact", key="deploy", value={"a": chunk}
    )
    second = memory_remember(
        actor=agent_actor, content="Deploy settings.", kind="fact", key="deploy",
        value={"b": chunk}, write_mode="merge",
    )  # fmt: skip
    with pytest.raises(ServiceError) as caught:
        for name in "cdefg":
            memory_remember(
                actor=agent_actor, content="Deploy settings.", kind="fact", key="deploy",
                value={name: chunk}, write_mode="merge",
            )  # fmt: skip
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    assert caught.value.details[0]["field"] == "value"
    stored = Memory.objects.get(pk=second.id)
    assert len(json.dumps(stored.value)) <= MAX_VALUE_BYTES
    assert first.id
