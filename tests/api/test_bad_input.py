"""Bad input, table-driven, to every route of the agent API: missing and extra fields, wrong
types, unknown enum values, oversize content, secrets, forged cursors, other users' ids,
expired and revoked tokens, wrong scopes and project restrictions. Each answer has the right
status and the error envelope, and the database is exactly as it was before."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from continuity.actors import Actor
from continuity.models import PersonalAccessToken
from continuity.tokens import token_revoke
from memories.models import Memory
from memories.selectors import _encode_cursor
from memories.services import memory_remember
from tests.api.helpers import ApiClient, assert_envelope, database_dump

pytestmark = pytest.mark.django_db

PROJECT = "github:acme/app"
OTHER_PROJECT = "github:acme/secret"
MISSING = "00000000-0000-4000-8000-000000000000"
# Fabricated credentials in the shapes the write gate knows.
PAT = "cont_pat_q7Fh2KxR9mLw4ZtB8nVc1JpY6sDe3GaU0oXiHbQk"
AWS_KEY = "AKIA" + "QX7R2M4K9PL3WZ5T"
FACT = {"content": "The API is deployed with Kamal.", "kind": "fact"}
HANDOFF = {"task_id": "T-1", "summary": "Deploy scripts half done."}
BATCH = {"source": "generic", "thread_id": "s-1", "items": [{"role": "user", "text": "hi"}]}


@pytest.fixture
def world(owner, other_owner, make_token):
    """Memories of the owner (shared, project, confirmed), one of another owner, and a token
    for every way a caller can be wrong."""
    me = Actor.owner(owner)
    ids = {
        "m": memory_remember(actor=me, content="CI runs on GitHub Actions.", kind="fact", trust="observed").id,
        "n": memory_remember(actor=me, content="Releases are tagged vX.Y.Z.", kind="procedure", trust="observed").id,
        "p": memory_remember(
            actor=me, content="The secret project uses Rust.", kind="fact", trust="observed",
            scope_type="project", scope_key=OTHER_PROJECT,
        ).id,  # fmt: skip
        "c": memory_remember(actor=me, content="Deploy only on weekdays.", kind="constraint").id,
        "o": memory_remember(actor=Actor.owner(other_owner), content="Grace's plans.", kind="fact").id,
        "missing": MISSING,
        "source": "claude_code",
        "thread_id": "no-such-thread",
    }
    tokens = {
        "agent": make_token("claude-code")[1],
        "read_only": make_token("reader", scopes=["memories:read"])[1],
        "capture_only": make_token("capture-bot", scopes=["capture:write"])[1],
        "restricted": make_token("codex", allowed_projects=[PROJECT])[1],
        "none": None,
        "garbage": "cont_pat_" + "A" * 40,
    }
    expired_row, tokens["expired"] = make_token("old-agent")
    PersonalAccessToken.objects.filter(pk=expired_row.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    revoked_row, tokens["revoked"] = make_token("gone-agent")
    token_revoke(actor=me, token_id=revoked_row.pk)
    ids["cursor_of_n"] = _encode_cursor(Memory.objects.get(pk=ids["n"]).pk, 10**9)
    return ids, tokens


def fill(value, ids):
    """Put the world's ids into a request template ("{m}" → the id of memory m)."""
    if isinstance(value, str):
        return value.format(**ids) if "{" in value else value
    if isinstance(value, dict):
        return {key: fill(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, ids) for item in value]
    return value


FORGED = base64.urlsafe_b64encode(json.dumps({"m": MISSING, "e": "1; DROP TABLE"}).encode()).decode()

# (case, method, path, body or query, token, status, code)
CASES = [
    # --- remember ---
    ("remember: no body", "post", "memories", None, "agent", 400, "VALIDATION_ERROR"),
    ("remember: missing content", "post", "memories", {"kind": "fact"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: missing kind", "post", "memories", {"content": "x"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: extra field", "post", "memories", {**FACT, "agent_name": "root"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: owner field", "post", "memories", {**FACT, "owner": 1}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: origin field", "post", "memories", {**FACT, "origin": "user"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: content not a string", "post", "memories", {**FACT, "content": 42}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: content null", "post", "memories", {**FACT, "content": None}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: blank content", "post", "memories", {**FACT, "content": "   "}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: tags not a list", "post", "memories", {**FACT, "tags": "ci"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: tag not a string", "post", "memories", {**FACT, "tags": [1]}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: value not an object", "post", "memories", {**FACT, "key": "k", "value": [1]}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: expected_version a string", "post", "memories", {**FACT, "key": "k", "expected_version": "1"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: expected_version negative", "post", "memories", {**FACT, "key": "k", "expected_version": -1}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: expected_version without key", "post", "memories", {**FACT, "expected_version": 1}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: confidence a bool", "post", "memories", {**FACT, "confidence": True, "confidence_basis": "agent_inferred"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: confidence over 1", "post", "memories", {**FACT, "confidence": 1.5, "confidence_basis": "agent_inferred"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: confidence without basis", "post", "memories", {**FACT, "confidence": 0.5}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown kind", "post", "memories", {**FACT, "kind": "opinion"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown type", "post", "memories", {**FACT, "type": "musical"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown scope_type", "post", "memories", {**FACT, "scope_type": "team"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown write_mode", "post", "memories", {**FACT, "key": "k", "write_mode": "append"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown trust", "post", "memories", {**FACT, "trust": "certain"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown visibility", "post", "memories", {**FACT, "visibility": "public"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: unknown confidence_basis", "post", "memories", {**FACT, "confidence": 0.5, "confidence_basis": "vibes"}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: merge without key", "post", "memories", {**FACT, "write_mode": "merge", "value": {"a": 1}}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: global with scope_key", "post", "memories", {**FACT, "scope_key": PROJECT}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: oversize content", "post", "memories", {**FACT, "content": "a" * 4001}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: oversize chinese content", "post", "memories", {**FACT, "content": "记" * 4001}, "agent", 400, "VALIDATION_ERROR"),
    ("remember: our own token", "post", "memories", {**FACT, "content": f"The token is {PAT}"}, "agent", 422, "SECRET_REJECTED"),
    ("remember: aws key", "post", "memories", {**FACT, "content": f"aws_access_key_id = {AWS_KEY}"}, "agent", 422, "SECRET_REJECTED"),
    ("remember: authorization header", "post", "memories", {**FACT, "content": "Authorization: Bearer abcdef0123456789abcdef0123"}, "agent", 422, "SECRET_REJECTED"),
    ("remember: password assignment", "post", "memories", {**FACT, "content": "db password = hunter2hunter2!"}, "agent", 422, "SECRET_REJECTED"),
    ("remember: secret in tags", "post", "memories", {**FACT, "tags": [PAT]}, "agent", 422, "SECRET_REJECTED"),
    ("remember: secret in value", "post", "memories", {**FACT, "key": "aws", "value": {"key": AWS_KEY}}, "agent", 422, "SECRET_REJECTED"),
    ("remember: agent asks for confirmed", "post", "memories", {**FACT, "trust": "confirmed"}, "agent", 403, "FORBIDDEN"),
    ("remember: agent asserts for the user", "post", "memories", {**FACT, "confidence": 0.9, "confidence_basis": "user_asserted"}, "agent", 403, "FORBIDDEN"),
    ("remember: private without private:read", "post", "memories", {**FACT, "visibility": "private"}, "agent", 403, "FORBIDDEN"),
    ("remember: another agent's scope", "post", "memories", {**FACT, "scope_type": "agent", "scope_key": "codex"}, "agent", 403, "FORBIDDEN"),
    ("remember: project not allowed", "post", "memories", {**FACT, "scope_type": "project", "scope_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("remember: read-only token", "post", "memories", FACT, "read_only", 403, "FORBIDDEN"),
    ("remember: capture-only token", "post", "memories", FACT, "capture_only", 403, "FORBIDDEN"),
    ("remember: no token", "post", "memories", FACT, "none", 401, "UNAUTHORIZED"),
    ("remember: unknown token", "post", "memories", FACT, "garbage", 401, "UNAUTHORIZED"),
    ("remember: expired token", "post", "memories", FACT, "expired", 401, "UNAUTHORIZED"),
    ("remember: revoked token", "post", "memories", FACT, "revoked", 401, "UNAUTHORIZED"),
    # --- checkpoint ---
    ("checkpoint: missing summary", "post", "checkpoints", {"memories": [FACT]}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: extra field", "post", "checkpoints", {"summary": "s", "status": "done"}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: memories not a list", "post", "checkpoints", {"summary": "s", "memories": FACT}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: atom with extra field", "post", "checkpoints", {"summary": "s", "memories": [{**FACT, "id": "{m}"}]}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: atom with unknown kind", "post", "checkpoints", {"summary": "s", "memories": [{**FACT, "kind": "gossip"}]}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: too many atoms", "post", "checkpoints", {"summary": "s", "memories": [{**FACT, "content": f"fact {i}"} for i in range(21)]}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: secret in an atom", "post", "checkpoints", {"summary": "s", "memories": [FACT, {**FACT, "content": f"key {AWS_KEY}"}]}, "agent", 422, "SECRET_REJECTED"),
    ("checkpoint: oversize summary", "post", "checkpoints", {"summary": "s" * 4001}, "agent", 400, "VALIDATION_ERROR"),
    ("checkpoint: project not allowed", "post", "checkpoints", {"summary": "s", "project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("checkpoint: read-only token", "post", "checkpoints", {"summary": "s"}, "read_only", 403, "FORBIDDEN"),
    ("checkpoint: revoked token", "post", "checkpoints", {"summary": "s"}, "revoked", 401, "UNAUTHORIZED"),
    # --- get ---
    ("get: malformed id", "get", "memories/not-a-uuid", None, "agent", 400, "VALIDATION_ERROR"),
    ("get: unknown id", "get", "memories/{missing}", None, "agent", 404, "NOT_FOUND"),
    ("get: another owner's memory", "get", "memories/{o}", None, "agent", 404, "NOT_FOUND"),
    ("get: a project outside the restriction", "get", "memories/{p}", None, "restricted", 404, "NOT_FOUND"),
    ("get: unknown query parameter", "get", "memories/{m}?full=1", None, "agent", 400, "VALIDATION_ERROR"),
    ("get: capture-only token", "get", "memories/{m}", None, "capture_only", 403, "FORBIDDEN"),
    ("get: expired token", "get", "memories/{m}", None, "expired", 401, "UNAUTHORIZED"),
    ("get: no token", "get", "memories/{m}", None, "none", 401, "UNAUTHORIZED"),
    # --- history ---
    ("history: forged cursor", "get", "memories/{m}/history", {"cursor": "not-a-cursor"}, "agent", 400, "VALIDATION_ERROR"),
    ("history: cursor with a bad position", "get", "memories/{m}/history", {"cursor": FORGED}, "agent", 400, "VALIDATION_ERROR"),
    ("history: another memory's cursor", "get", "memories/{m}/history", {"cursor": "{cursor_of_n}"}, "agent", 400, "VALIDATION_ERROR"),
    ("history: limit zero", "get", "memories/{m}/history", {"limit": 0}, "agent", 400, "VALIDATION_ERROR"),
    ("history: limit over the maximum", "get", "memories/{m}/history", {"limit": 101}, "agent", 400, "VALIDATION_ERROR"),
    ("history: limit not a number", "get", "memories/{m}/history", {"limit": "ten"}, "agent", 400, "VALIDATION_ERROR"),
    ("history: unknown parameter", "get", "memories/{m}/history", {"since": "2020-01-01"}, "agent", 400, "VALIDATION_ERROR"),
    ("history: another owner's memory", "get", "memories/{o}/history", None, "agent", 404, "NOT_FOUND"),
    ("history: capture-only token", "get", "memories/{m}/history", None, "capture_only", 403, "FORBIDDEN"),
    ("history: revoked token", "get", "memories/{m}/history", None, "revoked", 401, "UNAUTHORIZED"),
    # --- forget ---
    ("forget: extra field", "post", "memories/{m}/forget", {"reason": "old", "hard": True}, "agent", 400, "VALIDATION_ERROR"),
    ("forget: reason not a string", "post", "memories/{m}/forget", {"reason": 5}, "agent", 400, "VALIDATION_ERROR"),
    ("forget: reason too long", "post", "memories/{m}/forget", {"reason": "r" * 501}, "agent", 400, "VALIDATION_ERROR"),
    ("forget: malformed superseded_by", "post", "memories/{m}/forget", {"superseded_by": "newer"}, "agent", 400, "VALIDATION_ERROR"),
    ("forget: superseded by itself", "post", "memories/{m}/forget", {"superseded_by": "{m}"}, "agent", 400, "VALIDATION_ERROR"),
    ("forget: superseded by another owner's", "post", "memories/{m}/forget", {"superseded_by": "{o}"}, "agent", 404, "NOT_FOUND"),
    ("forget: another owner's memory", "post", "memories/{o}/forget", None, "agent", 404, "NOT_FOUND"),
    ("forget: unknown id", "post", "memories/{missing}/forget", None, "agent", 404, "NOT_FOUND"),
    ("forget: a confirmed memory", "post", "memories/{c}/forget", {"reason": "stale"}, "agent", 403, "FORBIDDEN"),
    ("forget: a project outside the restriction", "post", "memories/{p}/forget", None, "restricted", 404, "NOT_FOUND"),
    ("forget: read-only token", "post", "memories/{m}/forget", None, "read_only", 403, "FORBIDDEN"),
    ("forget: expired token", "post", "memories/{m}/forget", None, "expired", 401, "UNAUTHORIZED"),
    # --- link ---
    ("link: missing relation", "post", "memories/{m}/links", {"to_id": "{n}"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: unknown relation", "post", "memories/{m}/links", {"to_id": "{n}", "relation": "likes"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: supersedes by linking", "post", "memories/{m}/links", {"to_id": "{n}", "relation": "supersedes"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: both to_id and uri", "post", "memories/{m}/links", {"to_id": "{n}", "uri": "https://x.example", "relation": "supports"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: neither to_id nor uri", "post", "memories/{m}/links", {"relation": "supports"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: from_id in the body", "post", "memories/{m}/links", {"from_id": "{n}", "to_id": "{n}", "relation": "supports"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: to itself", "post", "memories/{m}/links", {"to_id": "{m}", "relation": "supports"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: uri not absolute", "post", "memories/{m}/links", {"uri": "docs/readme.md", "relation": "derived_from"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: uri too long", "post", "memories/{m}/links", {"uri": "https://x.example/" + "a" * 2000, "relation": "derived_from"}, "agent", 400, "VALIDATION_ERROR"),
    ("link: uri with a secret", "post", "memories/{m}/links", {"uri": f"https://x.example/?token={PAT}", "relation": "derived_from"}, "agent", 422, "SECRET_REJECTED"),
    ("link: to another owner's memory", "post", "memories/{m}/links", {"to_id": "{o}", "relation": "supports"}, "agent", 404, "NOT_FOUND"),
    ("link: from another owner's memory", "post", "memories/{o}/links", {"to_id": "{m}", "relation": "supports"}, "agent", 404, "NOT_FOUND"),
    ("link: to a project outside the restriction", "post", "memories/{m}/links", {"to_id": "{p}", "relation": "supports"}, "restricted", 404, "NOT_FOUND"),
    ("link: read-only token", "post", "memories/{m}/links", {"to_id": "{n}", "relation": "supports"}, "read_only", 403, "FORBIDDEN"),
    ("link: revoked token", "post", "memories/{m}/links", {"to_id": "{n}", "relation": "supports"}, "revoked", 401, "UNAUTHORIZED"),
    # --- recall (GET) ---
    ("recall: missing query", "get", "recall", {"limit": 5}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: blank query", "get", "recall", {"query": "  "}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: query too long", "get", "recall", {"query": "q" * 1001}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: unknown kind", "get", "recall", {"query": "ci", "kinds": ["fact", "rumour"]}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: limit zero", "get", "recall", {"query": "ci", "limit": 0}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: limit over the maximum", "get", "recall", {"query": "ci", "limit": 101}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: forged cursor", "get", "recall", {"query": "ci", "cursor": "eyJvZmZzZXQiOjEwfQ"}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: misspelt parameter", "get", "recall", {"query": "ci", "kind": "fact"}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: too many alt_queries", "get", "recall", {"query": "ci", "alt_queries": list("abcdef")}, "agent", 400, "VALIDATION_ERROR"),
    ("recall: project not allowed", "get", "recall", {"query": "ci", "project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("recall: capture-only token", "get", "recall", {"query": "ci"}, "capture_only", 403, "FORBIDDEN"),
    ("recall: expired token", "get", "recall", {"query": "ci"}, "expired", 401, "UNAUTHORIZED"),
    # --- recall (POST) ---
    ("recall post: no body", "post", "recall", None, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: extra field", "post", "recall", {"query": "ci", "scope": "all"}, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: query not a string", "post", "recall", {"query": ["ci"]}, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: alt_queries a string", "post", "recall", {"query": "ci", "alt_queries": "ci pipeline"}, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: limit a string", "post", "recall", {"query": "ci", "limit": "5"}, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: forged cursor", "post", "recall", {"query": "ci", "cursor": "x" * 40}, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: unknown kind", "post", "recall", {"query": "ci", "kinds": ["nonsense"]}, "agent", 400, "VALIDATION_ERROR"),
    ("recall post: project not allowed", "post", "recall", {"query": "ci", "project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("recall post: revoked token", "post", "recall", {"query": "ci"}, "revoked", 401, "UNAUTHORIZED"),
    # --- context ---
    ("context: missing query", "post", "context", {"purpose": "coding"}, "agent", 400, "VALIDATION_ERROR"),
    ("context: extra field", "post", "context", {"query": "ci", "format": "xml"}, "agent", 400, "VALIDATION_ERROR"),
    ("context: unknown purpose", "post", "context", {"query": "ci", "purpose": "poetry"}, "agent", 400, "VALIDATION_ERROR"),
    ("context: budget too small", "post", "context", {"query": "ci", "token_budget": 1}, "agent", 400, "VALIDATION_ERROR"),
    ("context: budget too large", "post", "context", {"query": "ci", "token_budget": 10**9}, "agent", 400, "VALIDATION_ERROR"),
    ("context: budget a string", "post", "context", {"query": "ci", "token_budget": "2000"}, "agent", 400, "VALIDATION_ERROR"),
    ("context: max_memories zero", "post", "context", {"query": "ci", "max_memories": 0}, "agent", 400, "VALIDATION_ERROR"),
    ("context: project not allowed", "post", "context", {"query": "ci", "project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("context: capture-only token", "post", "context", {"query": "ci"}, "capture_only", 403, "FORBIDDEN"),
    ("context: no token", "post", "context", {"query": "ci"}, "none", 401, "UNAUTHORIZED"),
    # --- bootstrap ---
    ("bootstrap: budget too small", "get", "bootstrap", {"token_budget": 0}, "agent", 400, "VALIDATION_ERROR"),
    ("bootstrap: budget not a number", "get", "bootstrap", {"token_budget": "lots"}, "agent", 400, "VALIDATION_ERROR"),
    ("bootstrap: unknown parameter", "get", "bootstrap", {"project": PROJECT}, "agent", 400, "VALIDATION_ERROR"),
    ("bootstrap: project not allowed", "get", "bootstrap", {"project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("bootstrap: capture-only token", "get", "bootstrap", None, "capture_only", 403, "FORBIDDEN"),
    ("bootstrap: expired token", "get", "bootstrap", None, "expired", 401, "UNAUTHORIZED"),
    # --- multi-step query ---
    ("query: missing query", "post", "query", {"subqueries": ["a"]}, "agent", 400, "VALIDATION_ERROR"),
    ("query: extra field", "post", "query", {"query": "ci", "depth": 3}, "agent", 400, "VALIDATION_ERROR"),
    ("query: empty subqueries", "post", "query", {"query": "ci", "subqueries": []}, "agent", 400, "VALIDATION_ERROR"),
    ("query: too many steps", "post", "query", {"query": "ci", "max_steps": 99}, "agent", 400, "VALIDATION_ERROR"),
    ("query: timeout too long", "post", "query", {"query": "ci", "timeout_ms": 10**7}, "agent", 400, "VALIDATION_ERROR"),
    ("query: include_history a string", "post", "query", {"query": "ci", "include_history": "yes"}, "agent", 400, "VALIDATION_ERROR"),
    ("query: project not allowed", "post", "query", {"query": "ci", "project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("query: capture-only token", "post", "query", {"query": "ci"}, "capture_only", 403, "FORBIDDEN"),
    ("query: revoked token", "post", "query", {"query": "ci"}, "revoked", 401, "UNAUTHORIZED"),
    # --- handoffs ---
    ("handoff: missing summary", "post", "handoffs", {"task_id": "T-1"}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: extra field", "post", "handoffs", {**HANDOFF, "from_agent": "root"}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: unknown status", "post", "handoffs", {**HANDOFF, "status": "finished"}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: next_steps not a list", "post", "handoffs", {**HANDOFF, "next_steps": "do it"}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: too many next_steps", "post", "handoffs", {**HANDOFF, "next_steps": ["s"] * 51}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: oversize summary", "post", "handoffs", {**HANDOFF, "summary": "s" * 4001}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: expiry in the past", "post", "handoffs", {**HANDOFF, "expires_at": "2020-01-01T00:00:00Z"}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: expiry without a time zone", "post", "handoffs", {**HANDOFF, "expires_at": "2030-01-01T00:00:00"}, "agent", 400, "VALIDATION_ERROR"),
    ("handoff: secret in next_steps", "post", "handoffs", {**HANDOFF, "next_steps": [f"key {AWS_KEY}"]}, "agent", 422, "SECRET_REJECTED"),
    ("handoff: token without the handoff scope", "post", "handoffs", HANDOFF, "read_only", 403, "FORBIDDEN"),
    ("handoff: revoked token", "post", "handoffs", HANDOFF, "revoked", 401, "UNAUTHORIZED"),
    ("resume: missing task_id", "post", "handoffs/resume", {}, "agent", 400, "VALIDATION_ERROR"),
    ("resume: extra field", "post", "handoffs/resume", {"task_id": "T-1", "agent": "codex"}, "agent", 400, "VALIDATION_ERROR"),
    ("resume: task_id too long", "post", "handoffs/resume", {"task_id": "t" * 301}, "agent", 400, "VALIDATION_ERROR"),
    ("resume: token without the handoff scope", "post", "handoffs/resume", {"task_id": "T-1"}, "capture_only", 403, "FORBIDDEN"),
    ("resume: no token", "post", "handoffs/resume", {"task_id": "T-1"}, "none", 401, "UNAUTHORIZED"),
    # --- capture ---
    ("capture: missing items", "post", "capture/batches", {"source": "codex", "thread_id": "s"}, "agent", 400, "VALIDATION_ERROR"),
    ("capture: unknown source", "post", "capture/batches", {**BATCH, "source": "trae"}, "agent", 400, "VALIDATION_ERROR"),
    ("capture: extra field", "post", "capture/batches", {**BATCH, "agent": "root"}, "agent", 400, "VALIDATION_ERROR"),
    ("capture: no items", "post", "capture/batches", {**BATCH, "items": []}, "agent", 400, "VALIDATION_ERROR"),
    ("capture: blank thread_id", "post", "capture/batches", {**BATCH, "thread_id": " "}, "agent", 400, "VALIDATION_ERROR"),
    ("capture: too many items", "post", "capture/batches", {**BATCH, "items": [{}] * 1001}, "agent", 413, "PAYLOAD_TOO_LARGE"),
    ("capture: token without capture:write", "post", "capture/batches", BATCH, "read_only", 403, "FORBIDDEN"),
    ("capture: project outside the token's", "post", "capture/batches", {**BATCH, "project_key": OTHER_PROJECT}, "restricted", 403, "FORBIDDEN"),
    ("capture: no token", "post", "capture/batches", BATCH, "none", 401, "UNAUTHORIZED"),
    ("capture batch: unknown id", "get", "capture/batches/{missing}", None, "agent", 404, "NOT_FOUND"),
    ("capture batch: unknown parameter", "get", "capture/batches/{missing}", {"full": 1}, "agent", 400, "VALIDATION_ERROR"),
    ("capture batch: without capture:write", "get", "capture/batches/{missing}", None, "read_only", 403, "FORBIDDEN"),
    ("capture thread: unknown", "get", "capture/threads/{source}/{thread_id}", None, "agent", 404, "NOT_FOUND"),
    ("capture thread: unknown source", "get", "capture/threads/trae/{thread_id}", None, "agent", 400, "VALIDATION_ERROR"),
    # --- inject ---
    ("inject: missing prompt", "post", "inject", {"project_key": PROJECT}, "agent", 400, "VALIDATION_ERROR"),
    ("inject: extra field", "post", "inject", {"prompt": "deploy?", "user": "root"}, "agent", 400, "VALIDATION_ERROR"),
    ("inject: no token", "post", "inject", {"prompt": "deploy?"}, "none", 401, "UNAUTHORIZED"),
    # --- capabilities ---
    ("capabilities: no token", "get", "capabilities", None, "none", 401, "UNAUTHORIZED"),
    ("capabilities: expired token", "get", "capabilities", None, "expired", 401, "UNAUTHORIZED"),
    ("capabilities: revoked token", "get", "capabilities", None, "revoked", 401, "UNAUTHORIZED"),
    ("capabilities: unknown parameter", "get", "capabilities", {"verbose": 1}, "agent", 400, "VALIDATION_ERROR"),
    ("capabilities: wrong method", "post", "capabilities", {}, "agent", 405, "METHOD_NOT_ALLOWED"),
]


@pytest.mark.parametrize(
    "method, path, payload, token, status, code",
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_input_gets_the_right_error_and_changes_nothing(client, world, method, path, payload, token, status, code):
    ids, tokens = world
    api = ApiClient(client, tokens[token])
    before = database_dump()

    path, payload = fill(path, ids), fill(payload, ids)
    if method == "get":
        response = api.get(path, payload)
    else:
        response = api.post(path, payload)

    if code is None:
        assert response.status_code == status, response.content
    else:
        error = assert_envelope(response, status, code)
        if status == 401:
            assert response["WWW-Authenticate"].startswith('Bearer realm="continuity"')
        if status == 400 and error["details"]:
            assert all("field" in detail for detail in error["details"]), error
    assert database_dump() == before


def test_every_route_is_covered_by_the_bad_input_table():
    from continuity.api import api

    routes = {
        (method.lower(), path.removeprefix("/api/v1/"))
        for path, operations in api.get_openapi_schema()["paths"].items()
        for method in operations
    }
    covered = {(method, path.split("?")[0].replace("{m}", "{id}").replace("{o}", "{id}")
                .replace("{p}", "{id}").replace("{missing}", "{id}").replace("not-a-uuid", "{id}"))
               for _, method, path, *_ in CASES}  # fmt: skip
    assert routes - covered == set()
