"""Fabricated data for tests and benchmarks: varied, deterministic, English and Chinese
statements (`statement()`), and factory-boy factories for the nouns the tests build."""

from __future__ import annotations

import factory
from django.conf import settings

from accounts.models import PersonalAccessToken
from accounts.tokens import token_create
from capture.models import Candidate
from foundation.actors import Actor
from handoff.models import HandoffCapsule
from handoff.services import handoff_create
from memories import text
from memories.models import Memory
from memories.services import memory_remember

SUBJECTS = [
    "the api service",
    "the web app",
    "CI",
    "the worker",
    "the docs site",
    "支付服务",
    "前端项目",
    "数据管道",
]
VERBS = [
    "uses",
    "prefers",
    "deploys with",
    "is tested with",
    "caches through",
    "使用",
    "依赖",
    "部署在",
]
OBJECTS = [
    "PostgreSQL 16",
    "Redis",
    "pnpm",
    "uv",
    "GitHub Actions",
    "Kubernetes",
    "缓存层",
    "消息队列",
    "镜像仓库",
]
QUALIFIERS = [
    "on weekdays",
    "in staging",
    "since March",
    "for every release",
    "在生产环境",
    "从下个版本开始",
    "",
]


def statement(index: int) -> str:
    """A plausible memory statement; distinct for every index."""
    parts = [
        SUBJECTS[index % len(SUBJECTS)],
        VERBS[(index // len(SUBJECTS)) % len(VERBS)],
        OBJECTS[(index // 7) % len(OBJECTS)],
        QUALIFIERS[(index // 11) % len(QUALIFIERS)],
    ]
    return " ".join(part for part in parts if part) + f" (note {index})"


# --- factory-boy factories -----------------------------------------------------------------
#
# Rows are made the way the product makes them, so a factory-built object obeys every rule
# a real one does: tokens through token_create (hash, prefix, expiry), memories through
# memory_remember (gates, fingerprint, history event) and capsules through handoff_create.
# Only Candidate, which extraction writes, is a plain row with the fingerprint the inbox
# keys it by.

PASSWORD = "correct horse battery"
AGENT_SCOPES = ["memories:read", "memories:write", "capture:write", "handoff"]


class UserFactory(factory.django.DjangoModelFactory):
    """An owner: `UserFactory(username="ada")`; the password is PASSWORD unless given."""

    class Meta:
        model = settings.AUTH_USER_MODEL

    username = factory.Sequence(lambda n: f"owner{n}")
    password = factory.django.Password(PASSWORD)


class TokenFactory(factory.Factory):
    """A personal access token issued by token_create for `owner` (a new user unless given).
    The raw secret, which only its creation ever sees, is `token.raw`."""

    class Meta:
        model = PersonalAccessToken

    owner = factory.SubFactory(UserFactory)
    agent_name = "claude-code"
    name = factory.LazyAttribute(lambda token: f"{token.agent_name} token")
    scopes = factory.LazyFunction(lambda: list(AGENT_SCOPES))
    expires_in_days = 30
    expires_at = None
    allowed_projects = None
    purpose = ""

    @classmethod
    def _create(cls, model_class, *, owner, expires_in_days, expires_at, **fields):
        if expires_at is not None:
            expires_in_days = None  # token_create takes exactly one of the two
        token, raw = token_create(
            actor=Actor.owner(owner),
            expires_in_days=expires_in_days,
            expires_at=expires_at,
            **fields,
        )
        token.raw = raw
        return token


class MemoryFactory(factory.Factory):
    """A memory written by memory_remember as `actor` (a new owner unless given): every
    keyword memory_remember takes can be passed. `.receipt` is what remember answered."""

    class Meta:
        model = Memory

    actor = factory.LazyFunction(lambda: Actor.owner(UserFactory()))
    content = factory.Sequence(statement)
    kind = "preference"

    @classmethod
    def _create(cls, model_class, **fields):
        receipt = memory_remember(**fields)
        memory = model_class.objects.get(pk=receipt.id)
        memory.receipt = receipt
        return memory


class HandoffCapsuleFactory(factory.Factory):
    """A capsule left by handoff_create as `actor` (a new owner unless given)."""

    class Meta:
        model = HandoffCapsule

    actor = factory.LazyFunction(lambda: Actor.owner(UserFactory()))
    task_id = factory.Sequence(lambda n: f"TASK-{n}")
    summary = factory.Sequence(lambda n: f"Step {n} done; {statement(n)} next.")

    @classmethod
    def _create(cls, model_class, **fields):
        return handoff_create(**fields)


class CandidateFactory(factory.django.DjangoModelFactory):
    """A pending candidate in `owner`'s inbox, with one sentence of evidence."""

    class Meta:
        model = Candidate

    owner = factory.SubFactory(UserFactory)
    content = factory.Sequence(statement)
    kind = "decision"
    scope_type = "global"
    scope_key = ""
    rule = "we_decided"
    confidence = 0.8
    fingerprint = factory.LazyAttribute(
        lambda candidate: text.fingerprint(
            candidate.content, candidate.scope_type, candidate.scope_key
        )
    )
    agents = factory.LazyFunction(lambda: ["claude-code"])
    evidence = factory.LazyAttribute(
        lambda candidate: [{"sentence": f"We decided: {candidate.content}", "agent": "claude-code"}]
    )
