"""Bad input to every owner endpoint: the right status, the envelope, and nothing changed.

Secrets are fabricated, and assembled at run time so that no credential-shaped literal sits
in the repository.
"""

from __future__ import annotations

import random
import string
from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.actors import Actor
from memories.services import memory_archive
from tests.memories.helpers import remember
from tests.owner_api.conftest import db_state, error_of

pytestmark = pytest.mark.django_db

_random = random.Random(11)
PAT = (
    "cont_"
    + "pat_"
    + "".join(_random.choice(string.ascii_letters + string.digits) for _ in range(40))
)
COOKIE = "Cookie: sessionid=" + "".join(_random.choice("0123456789abcdef") for _ in range(32))
GOOD = {"content": "Prefer small pull requests.", "kind": "preference"}
TOKEN = {
    "name": "laptop",
    "agent_name": "claude-code",
    "scopes": ["memories:read"],
    "expires_in_days": 30,
}
PAST = (timezone.now() - timedelta(days=1)).isoformat()
FAR = (timezone.now() + timedelta(days=4000)).isoformat()

# (id, method, path, body, status, code, field named in details or None)
CASES = [
    # --- remember ---------------------------------------------------------------------------
    (
        "remember-missing-content",
        "post",
        "/memories/",
        {"kind": "fact"},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "remember-missing-kind",
        "post",
        "/memories/",
        {"content": "x y z"},
        400,
        "VALIDATION_ERROR",
        "kind",
    ),
    (
        "remember-unknown-kind",
        "post",
        "/memories/",
        {**GOOD, "kind": "opinion"},
        400,
        "VALIDATION_ERROR",
        "kind",
    ),
    (
        "remember-unknown-trust",
        "post",
        "/memories/",
        {**GOOD, "trust": "certain"},
        400,
        "VALIDATION_ERROR",
        "trust",
    ),
    (
        "remember-unknown-scope",
        "post",
        "/memories/",
        {**GOOD, "scope_type": "team"},
        400,
        "VALIDATION_ERROR",
        "scope_type",
    ),
    (
        "remember-unknown-visibility",
        "post",
        "/memories/",
        {**GOOD, "visibility": "public"},
        400,
        "VALIDATION_ERROR",
        "visibility",
    ),
    (
        "remember-unknown-write-mode",
        "post",
        "/memories/",
        {**GOOD, "write_mode": "append"},
        400,
        "VALIDATION_ERROR",
        "write_mode",
    ),
    (
        "remember-project-without-key",
        "post",
        "/memories/",
        {**GOOD, "scope_type": "project"},
        400,
        "VALIDATION_ERROR",
        "scope_key",
    ),
    (
        "remember-global-with-key",
        "post",
        "/memories/",
        {**GOOD, "scope_key": "github:a/b"},
        400,
        "VALIDATION_ERROR",
        "scope_key",
    ),
    (
        "remember-oversize",
        "post",
        "/memories/",
        {**GOOD, "content": "x" * 4001},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "remember-blank",
        "post",
        "/memories/",
        {**GOOD, "content": "   "},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "remember-content-number",
        "post",
        "/memories/",
        {**GOOD, "content": 42},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "remember-content-nul",
        "post",
        "/memories/",
        {**GOOD, "content": "a\u0000b"},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "remember-tags-string",
        "post",
        "/memories/",
        {**GOOD, "tags": "python"},
        400,
        "VALIDATION_ERROR",
        "tags",
    ),
    (
        "remember-tags-numbers",
        "post",
        "/memories/",
        {**GOOD, "tags": [1, 2]},
        400,
        "VALIDATION_ERROR",
        "tags.0",
    ),
    (
        "remember-too-many-tags",
        "post",
        "/memories/",
        {**GOOD, "tags": [f"t{i}" for i in range(21)]},
        400,
        "VALIDATION_ERROR",
        "tags",
    ),
    (
        "remember-value-not-object",
        "post",
        "/memories/",
        {**GOOD, "value": [1]},
        400,
        "VALIDATION_ERROR",
        "value",
    ),
    (
        "remember-value-nul",
        "post",
        "/memories/",
        {**GOOD, "key": "k", "value": {"a": "x\u0000"}},
        400,
        "VALIDATION_ERROR",
        "value",
    ),
    (
        "remember-merge-without-key",
        "post",
        "/memories/",
        {**GOOD, "write_mode": "merge"},
        400,
        "VALIDATION_ERROR",
        "write_mode",
    ),
    (
        "remember-negative-version",
        "post",
        "/memories/",
        {**GOOD, "key": "k", "expected_version": -1},
        400,
        "VALIDATION_ERROR",
        "expected_version",
    ),
    (
        "remember-version-text",
        "post",
        "/memories/",
        {**GOOD, "key": "k", "expected_version": "one"},
        400,
        "VALIDATION_ERROR",
        "expected_version",
    ),
    (
        "remember-confidence-high",
        "post",
        "/memories/",
        {**GOOD, "confidence": 2, "confidence_basis": "user_asserted"},
        400,
        "VALIDATION_ERROR",
        "confidence",
    ),
    (
        "remember-confidence-alone",
        "post",
        "/memories/",
        {**GOOD, "confidence": 0.5},
        400,
        "VALIDATION_ERROR",
        "confidence_basis",
    ),
    (
        "remember-extra-field",
        "post",
        "/memories/",
        {**GOOD, "owner": 2},
        400,
        "VALIDATION_ERROR",
        "owner",
    ),
    (
        "remember-origin-field",
        "post",
        "/memories/",
        {**GOOD, "origin": "import"},
        400,
        "VALIDATION_ERROR",
        "origin",
    ),
    (
        "remember-secret-pat",
        "post",
        "/memories/",
        {**GOOD, "content": f"My token is {PAT}"},
        422,
        "SECRET_REJECTED",
        "content",
    ),
    (
        "remember-secret-cookie",
        "post",
        "/memories/",
        {**GOOD, "content": COOKIE},
        422,
        "SECRET_REJECTED",
        "content",
    ),
    (
        "remember-secret-in-hints",
        "post",
        "/memories/",
        {**GOOD, "retrieval_hints": [COOKIE]},
        422,
        "SECRET_REJECTED",
        "retrieval_hints",
    ),
    ("remember-list-body", "post", "/memories/", [GOOD], 400, "VALIDATION_ERROR", None),
    ("remember-malformed-json", "post", "/memories/", "{not json", 400, "VALIDATION_ERROR", None),
    (
        "remember-form-encoded",
        "post-form",
        "/memories/",
        "content=x&kind=fact",
        415,
        "VALIDATION_ERROR",
        None,
    ),
    (
        "remember-too-large",
        "post",
        "/memories/",
        {**GOOD, "padding": "x" * 300_000},
        413,
        "PAYLOAD_TOO_LARGE",
        None,
    ),
    # --- actions on memories ------------------------------------------------------------------
    ("confirm-theirs", "post", "/memories/{theirs}/confirm/", {}, 404, "NOT_FOUND", None),
    ("lock-theirs", "post", "/memories/{theirs}/lock/", {}, 404, "NOT_FOUND", None),
    ("unlock-theirs", "post", "/memories/{theirs}/unlock/", {}, 404, "NOT_FOUND", None),
    ("restore-theirs", "post", "/memories/{theirs}/restore/", {}, 404, "NOT_FOUND", None),
    ("archive-theirs", "post", "/memories/{theirs}/archive/", {}, 404, "NOT_FOUND", None),
    (
        "correct-theirs",
        "post",
        "/memories/{theirs}/correct/",
        {"content": "Mine now."},
        404,
        "NOT_FOUND",
        None,
    ),
    (
        "delete-theirs",
        "post",
        "/memories/{theirs}/delete/",
        {"confirm": True},
        404,
        "NOT_FOUND",
        None,
    ),
    (
        "http-delete-theirs",
        "delete",
        "/memories/{theirs}/?confirm=true",
        None,
        404,
        "NOT_FOUND",
        None,
    ),
    (
        "link-from-theirs",
        "post",
        "/memories/{theirs}/link/",
        {"to_id": "{mine}", "relation": "supports"},
        404,
        "NOT_FOUND",
        None,
    ),
    (
        "link-to-theirs",
        "post",
        "/memories/{mine}/link/",
        {"to_id": "{theirs}", "relation": "supports"},
        404,
        "NOT_FOUND",
        None,
    ),
    (
        "confirm-unknown-id",
        "post",
        "/memories/00000000-0000-4000-8000-000000000000/confirm/",
        {},
        404,
        "NOT_FOUND",
        None,
    ),
    ("confirm-not-a-uuid", "post", "/memories/not-a-uuid/confirm/", {}, 404, "NOT_FOUND", None),
    (
        "confirm-extra-field",
        "post",
        "/memories/{mine}/confirm/",
        {"trust": "locked"},
        400,
        "VALIDATION_ERROR",
        "trust",
    ),
    (
        "correct-missing-content",
        "post",
        "/memories/{mine}/correct/",
        {"kind": "fact"},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "correct-oversize",
        "post",
        "/memories/{mine}/correct/",
        {"content": "y" * 4001},
        400,
        "VALIDATION_ERROR",
        "content",
    ),
    (
        "correct-unknown-kind",
        "post",
        "/memories/{mine}/correct/",
        {"content": "Fine.", "kind": "rumour"},
        400,
        "VALIDATION_ERROR",
        "kind",
    ),
    (
        "correct-secret",
        "post",
        "/memories/{mine}/correct/",
        {"content": f"use {PAT}"},
        422,
        "SECRET_REJECTED",
        "content",
    ),
    (
        "correct-archived",
        "post",
        "/memories/{archived}/correct/",
        {"content": "Revived."},
        400,
        "VALIDATION_ERROR",
        "id",
    ),
    (
        "correct-extra-field",
        "post",
        "/memories/{mine}/correct/",
        {"content": "Fine.", "trust": "locked"},
        400,
        "VALIDATION_ERROR",
        "trust",
    ),
    (
        "archive-long-reason",
        "post",
        "/memories/{mine}/archive/",
        {"reason": "r" * 501},
        400,
        "VALIDATION_ERROR",
        "reason",
    ),
    (
        "archive-reason-number",
        "post",
        "/memories/{mine}/archive/",
        {"reason": 5},
        400,
        "VALIDATION_ERROR",
        "reason",
    ),
    (
        "delete-without-confirm",
        "post",
        "/memories/{mine}/delete/",
        {},
        400,
        "VALIDATION_ERROR",
        "confirm",
    ),
    (
        "link-unknown-relation",
        "post",
        "/memories/{mine}/link/",
        {"to_id": "{archived}", "relation": "likes"},
        400,
        "VALIDATION_ERROR",
        "relation",
    ),
    (
        "link-supersedes",
        "post",
        "/memories/{mine}/link/",
        {"to_id": "{archived}", "relation": "supersedes"},
        400,
        "VALIDATION_ERROR",
        "relation",
    ),
    (
        "link-both-targets",
        "post",
        "/memories/{mine}/link/",
        {"to_id": "{archived}", "uri": "https://a.example/x", "relation": "supports"},
        400,
        "VALIDATION_ERROR",
        "to_id",
    ),
    (
        "link-no-target",
        "post",
        "/memories/{mine}/link/",
        {"relation": "supports"},
        400,
        "VALIDATION_ERROR",
        "to_id",
    ),
    (
        "link-bad-uuid",
        "post",
        "/memories/{mine}/link/",
        {"to_id": "nope", "relation": "supports"},
        400,
        "VALIDATION_ERROR",
        "to_id",
    ),
    (
        "link-to-itself",
        "post",
        "/memories/{mine}/link/",
        {"to_id": "{mine}", "relation": "supports"},
        400,
        "VALIDATION_ERROR",
        "to_id",
    ),
    (
        "link-relative-uri",
        "post",
        "/memories/{mine}/link/",
        {"uri": "just/a/path", "relation": "supports"},
        400,
        "VALIDATION_ERROR",
        "uri",
    ),
    (
        "link-secret-uri",
        "post",
        "/memories/{mine}/link/",
        {"uri": f"https://hub.local/mcp?token={PAT}", "relation": "supports"},
        422,
        "SECRET_REJECTED",
        "uri",
    ),
    ("put-memory", "put", "/memories/{mine}/", {}, 405, "METHOD_NOT_ALLOWED", None),
    ("get-confirm", "get", "/memories/{mine}/confirm/", None, 405, "METHOD_NOT_ALLOWED", None),
    # --- reads ----------------------------------------------------------------------------------
    ("get-theirs", "get", "/memories/{theirs}/", None, 404, "NOT_FOUND", None),
    ("history-theirs", "get", "/memories/{theirs}/history/", None, 404, "NOT_FOUND", None),
    (
        "history-limit-zero",
        "get",
        "/memories/{mine}/history/?limit=0",
        None,
        400,
        "VALIDATION_ERROR",
        "limit",
    ),
    (
        "history-limit-text",
        "get",
        "/memories/{mine}/history/?limit=ten",
        None,
        400,
        "VALIDATION_ERROR",
        "limit",
    ),
    (
        "history-limit-huge",
        "get",
        "/memories/{mine}/history/?limit=101",
        None,
        400,
        "VALIDATION_ERROR",
        "limit",
    ),
    (
        "history-forged-cursor",
        "get",
        "/memories/{mine}/history/?cursor=Zm9yZ2Vk",
        None,
        400,
        "VALIDATION_ERROR",
        "cursor",
    ),
    (
        "history-unknown-param",
        "get",
        "/memories/{mine}/history/?page=2",
        None,
        400,
        "VALIDATION_ERROR",
        "page",
    ),
    ("list-unknown-kind", "get", "/memories/?kind=opinion", None, 400, "VALIDATION_ERROR", "kind"),
    (
        "list-unknown-status",
        "get",
        "/memories/?status=deleted",
        None,
        400,
        "VALIDATION_ERROR",
        "status",
    ),
    ("list-unknown-param", "get", "/memories/?kinds=fact", None, 400, "VALIDATION_ERROR", "kinds"),
    ("list-limit-huge", "get", "/memories/?limit=1000", None, 400, "VALIDATION_ERROR", "limit"),
    ("list-limit-negative", "get", "/memories/?limit=-1", None, 400, "VALIDATION_ERROR", "limit"),
    (
        "list-forged-cursor",
        "get",
        "/memories/?cursor=eyJ0IjogIm5vdyJ9",
        None,
        400,
        "VALIDATION_ERROR",
        "cursor",
    ),
    (
        "list-garbage-cursor",
        "get",
        "/memories/?cursor=%%%",
        None,
        400,
        "VALIDATION_ERROR",
        "cursor",
    ),
    ("list-nul-query", "get", "/memories/?q=a%00b", None, 400, "VALIDATION_ERROR", "q"),
    ("list-long-query", "get", "/memories/?q=" + "q" * 301, None, 400, "VALIDATION_ERROR", "q"),
    ("unknown-endpoint", "get", "/memories/{mine}/comments/", None, 404, "NOT_FOUND", None),
    ("unknown-root", "post", "/everything/", {}, 404, "NOT_FOUND", None),
    # --- tokens ---------------------------------------------------------------------------------
    (
        "token-missing-name",
        "post",
        "/tokens/",
        {k: v for k, v in TOKEN.items() if k != "name"},
        400,
        "VALIDATION_ERROR",
        "name",
    ),
    (
        "token-long-name",
        "post",
        "/tokens/",
        {**TOKEN, "name": "n" * 101},
        400,
        "VALIDATION_ERROR",
        "name",
    ),
    (
        "token-bad-agent",
        "post",
        "/tokens/",
        {**TOKEN, "agent_name": "claude code!"},
        400,
        "VALIDATION_ERROR",
        "agent_name",
    ),
    (
        "token-unknown-scope",
        "post",
        "/tokens/",
        {**TOKEN, "scopes": ["memories:admin"]},
        400,
        "VALIDATION_ERROR",
        "scopes.0",
    ),
    (
        "token-no-scopes",
        "post",
        "/tokens/",
        {**TOKEN, "scopes": []},
        400,
        "VALIDATION_ERROR",
        "scopes",
    ),
    (
        "token-scopes-string",
        "post",
        "/tokens/",
        {**TOKEN, "scopes": "memories:read"},
        400,
        "VALIDATION_ERROR",
        "scopes",
    ),
    (
        "token-zero-days",
        "post",
        "/tokens/",
        {**TOKEN, "expires_in_days": 0},
        400,
        "VALIDATION_ERROR",
        "expires_in_days",
    ),
    (
        "token-too-many-days",
        "post",
        "/tokens/",
        {**TOKEN, "expires_in_days": 3651},
        400,
        "VALIDATION_ERROR",
        "expires_in_days",
    ),
    (
        "token-two-expiries",
        "post",
        "/tokens/",
        {**TOKEN, "expires_at": FAR},
        400,
        "VALIDATION_ERROR",
        "expires_at",
    ),
    (
        "token-expired-already",
        "post",
        "/tokens/",
        {**{k: v for k, v in TOKEN.items() if k != "expires_in_days"}, "expires_at": PAST},
        400,
        "VALIDATION_ERROR",
        "expires_at",
    ),
    (
        "token-bad-date",
        "post",
        "/tokens/",
        {**{k: v for k, v in TOKEN.items() if k != "expires_in_days"}, "expires_at": "tomorrow"},
        400,
        "VALIDATION_ERROR",
        "expires_at",
    ),
    (
        "token-projects-string",
        "post",
        "/tokens/",
        {**TOKEN, "allowed_projects": "github:a/b"},
        400,
        "VALIDATION_ERROR",
        "allowed_projects",
    ),
    (
        "token-extra-field",
        "post",
        "/tokens/",
        {**TOKEN, "secret": "mine"},
        400,
        "VALIDATION_ERROR",
        "secret",
    ),
    ("token-revoke-theirs", "post", "/tokens/{their_token}/revoke/", {}, 404, "NOT_FOUND", None),
    ("token-get-theirs", "get", "/tokens/{their_token}/", None, 404, "NOT_FOUND", None),
    ("token-revoke-unknown", "post", "/tokens/999999/revoke/", {}, 404, "NOT_FOUND", None),
    ("token-revoke-not-a-number", "post", "/tokens/abc/revoke/", {}, 404, "NOT_FOUND", None),
    ("token-list-bad-state", "get", "/tokens/?state=dead", None, 400, "VALIDATION_ERROR", "state"),
    ("token-delete", "delete", "/tokens/{my_token}/", None, 405, "METHOD_NOT_ALLOWED", None),
]


@pytest.fixture
def ids(owner_actor, agent_actor, other_owner, make_token):
    mine = remember(agent_actor, content="The worker retries three times.", kind="fact")
    archived = remember(owner_actor, content="The worker retried twice.", kind="fact")
    memory_archive(actor=owner_actor, memory_id=archived.id)
    theirs = remember(Actor.owner(other_owner), content="Grace keeps her notes here.", kind="fact")
    my_token, _ = make_token("claude-code")
    their_token, _ = make_token("codex", user=other_owner)
    return {
        "mine": mine.id, "archived": archived.id, "theirs": theirs.id,
        "my_token": my_token.pk, "their_token": their_token.pk,
    }  # fmt: skip


def _fill(value, ids):
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids.get(value[1:-1], value)  # "{mine}" -> that memory's id
    if isinstance(value, dict):
        return {key: _fill(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, ids) for item in value]
    return value


@pytest.mark.parametrize(
    "method,path,body,status,code,field",
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_input_gets_its_status_and_envelope_and_changes_nothing(
    api, ids, method, path, body, status, code, field
):
    path = path.format(**ids)
    before = db_state()
    if method == "post-form":
        response = api.post(path, raw=body, content_type="application/x-www-form-urlencoded")
    elif isinstance(body, str):
        response = api.post(path, raw=body)
    elif method == "post":
        response = api.post(path, _fill(body, ids))
    else:
        response = api.request(method, path, _fill(body, ids))
    error = error_of(response, status, code)
    if field is not None:
        named = [detail.get("field") or "" for detail in error["details"]]
        # The field itself, or a part of it (value.a) when the problem is inside.
        assert any(name == field or name.startswith(f"{field}.") for name in named), error
    assert db_state() == before


def test_the_case_table_has_unique_names():
    names = [case[0] for case in CASES]
    assert len(names) == len(set(names))


def test_a_wrong_method_names_the_allowed_ones(api, ids):
    response = api.request("put", f"/memories/{ids['mine']}/", {})
    assert set(response["Allow"].replace(" ", "").split(",")) >= {"GET", "DELETE"}


def test_a_secret_is_never_echoed_back(api):
    response = api.post("/memories/", {**GOOD, "content": f"My token is {PAT}"})
    assert PAT not in response.content.decode() and PAT[:20] not in response.content.decode()
