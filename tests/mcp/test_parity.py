"""Door parity: the same operations sent through MCP (the SDK's in-memory client) and through
the agent API (HTTP), as the same token, over the same store, answer in the same shape —
the same keys and the same values, ids and timestamps aside.

Each door runs the whole sequence on an empty store (the owner's data is wiped between the
two runs; the token stays), so ids differ and everything else must not. Ids are replaced
by the order in which they first appear, so a result naming the wrong memory still differs.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest

from handoff.models import HandoffCapsule
from injection.models import InjectionReceipt
from memories.models import IdempotencyRecord, Memory, MemoryEvent, MemoryLink, ReviewProposal
from tests.api.helpers import ApiClient
from tests.mcp.helpers import TOOLS, ok

pytestmark = pytest.mark.django_db(transaction=True)

PROJECT = "github:acme/api"
SHORT_ID = re.compile(r"\bid ([0-9a-f]{8})\b")
UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Integer ids (links, events) and signed cursors differ between runs by nature.
OPAQUE_KEYS = {"next_cursor"}
SAME = object()  # the REST body (or query) is the MCP arguments


def steps():
    """(label, MCP tool, arguments, REST method, REST path, REST body, REST status).
    Arguments, paths and bodies may be functions of the results so far (by label); the
    REST body None sends none, SAME sends the MCP arguments."""
    note = {"scope_type": "project", "scope_key": PROJECT}
    return [
        ("remember", "memory_remember", {
            "content": "Release notes go in CHANGELOG.md.", "kind": "decision", **note,
            "tags": ["release"], "retrieval_hints": ["where do release notes live"],
        }, "post", "memories", SAME, 201),
        ("remember other", "memory_remember", {
            "content": "Release notes are drafted in docs/releases before a release.",
            "kind": "procedure", **note,
        }, "post", "memories", SAME, 201),
        ("remember keyed", "memory_remember", {
            "content": "Releases are cut on Tuesdays.", "kind": "decision", **note,
            "key": "release.day", "value": {"day": "tuesday"}, "expected_version": 0,
            "confidence": 0.7, "confidence_basis": "source_supported", "trust": "observed",
        }, "post", "memories", SAME, 201),
        ("recall", "memory_recall", {"query": "where do release notes go", "project_key": PROJECT},
         "post", "recall", SAME, 200),
        ("context", "memory_context", {
            "query": "how do we release", "project_key": PROJECT, "purpose": "coding",
            "token_budget": 400,
        }, "post", "context", SAME, 200),
        ("bootstrap", "memory_bootstrap", {"project_key": PROJECT},
         "get", "bootstrap", SAME, 200),
        ("link", "memory_link", lambda r: {
            "from_id": r["remember"]["id"], "to_id": r["remember other"]["id"],
            "relation": "related_to",
        }, "post", lambda r: f"memories/{r['remember']['id']}/links",
         lambda r: {"to_id": r["remember other"]["id"], "relation": "related_to"}, 200),
        ("link uri", "memory_link", lambda r: {
            "from_id": r["remember"]["id"], "uri": "https://wiki.example/releases",
            "relation": "derived_from",
        }, "post", lambda r: f"memories/{r['remember']['id']}/links",
         {"uri": "https://wiki.example/releases", "relation": "derived_from"}, 200),
        ("forget", "memory_forget", lambda r: {
            "id": r["remember other"]["id"], "reason": "folded into the changelog decision",
            "superseded_by": r["remember"]["id"],
        }, "post", lambda r: f"memories/{r['remember other']['id']}/forget",
         lambda r: {"reason": "folded into the changelog decision",
                    "superseded_by": r["remember"]["id"]}, 200),
        ("forget plain", "memory_forget", lambda r: {"id": r["remember keyed"]["id"]},
         "post", lambda r: f"memories/{r['remember keyed']['id']}/forget", None, 200),
        ("history", "memory_history", lambda r: {"id": r["remember other"]["id"], "limit": 10},
         "get", lambda r: f"memories/{r['remember other']['id']}/history", {"limit": 10}, 200),
        ("checkpoint", "memory_checkpoint", {
            "summary": "Release process written down; the changelog is the source of truth.",
            "project_key": PROJECT,
            "memories": [{"content": "Changelog entries name the issue they close.",
                          "kind": "procedure", "tags": ["release"]}],
        }, "post", "checkpoints", SAME, 201),
        ("handoff create", "memory_handoff_create", {
            "task_id": "github:acme/api#7", "summary": "Release notes half written.",
            "status": "blocked", "next_steps": ["Finish the notes"], "blockers": ["Review"],
        }, "post", "handoffs", SAME, 201),
        ("handoff resume", "memory_handoff_resume", {"task_id": "github:acme/api#7"},
         "post", "handoffs/resume", SAME, 200),
        ("handoff resume none", "memory_handoff_resume", {"task_id": "github:acme/api#8"},
         "post", "handoffs/resume", SAME, 200),
        ("capabilities", "memory_capabilities", {}, "get", "capabilities", None, 200),
    ]  # fmt: skip


def _value(given, results):
    return given(results) if callable(given) else given


def through_mcp(mcp) -> dict:
    results = {}
    for label, tool, arguments, *_ in steps():
        results[label] = ok(mcp.call(tool, _value(arguments, results)))
    return results


def through_rest(api: ApiClient) -> dict:
    results = {}
    for label, _, arguments, method, path, body, status in steps():
        sent = _value(arguments if body is SAME else body, results)
        path = _value(path, results)
        response = api.get(path, sent) if method == "get" else api.post(path, sent)
        assert response.status_code == status, (label, response.status_code, response.json())
        results[label] = response.json()
    return results


def wipe_the_store() -> None:
    for model in (InjectionReceipt, MemoryLink, MemoryEvent, ReviewProposal, IdempotencyRecord):
        model.objects.all().delete()
    Memory.objects.update(supersedes=None)
    Memory.objects.all().delete()
    HandoffCapsule.objects.all().delete()


def _is_timestamp(value: str) -> bool:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return parsed.tzinfo is not None


def normalized(results: dict) -> dict:
    """The results with every UUID (and the short form context blocks print) named by its
    order of first appearance, integer ids and cursors marked as such, and timestamps
    reduced to "a time"."""
    names: dict[str, str] = {}
    for found in UUID_TEXT.findall(json.dumps(results)):
        names.setdefault(found, f"<id {len(names) + 1}>")
    short = {uuid[:8]: name for uuid, name in names.items()}

    def walk(value, key=None):
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if key in OPAQUE_KEYS and value is not None:
            return "<opaque>"
        if key == "id" and isinstance(value, int):
            return "<int id>"
        if isinstance(value, str):
            if _is_timestamp(value):
                return "<time>"
            value = UUID_TEXT.sub(lambda match: names[match.group(0)], value)
            return SHORT_ID.sub(lambda match: f"id {short.get(match[1], match[1])}", value)
        return value

    return walk(results)


def test_every_agent_operation_is_in_the_parity_sequence():
    assert {tool for _, tool, *_ in steps()} == TOOLS


def test_both_agent_doors_answer_every_operation_in_the_same_shape(mcp_as, make_token, client):
    token, raw = make_token("claude-code")

    over_mcp = normalized(through_mcp(mcp_as(raw=raw)))
    wipe_the_store()
    over_rest = normalized(through_rest(ApiClient(client, raw)))

    differences = [
        f"{label}:\n  mcp:  {over_mcp[label]}\n  rest: {over_rest[label]}"
        for label in over_mcp
        if over_mcp[label] != over_rest[label]
    ]
    assert differences == [], "\n".join(differences)
