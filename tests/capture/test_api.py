"""The capture doors of the agent API, over HTTP with real tokens."""

from __future__ import annotations

import json

import pytest

from capture.models import CaptureBatch, CaptureThread, ConversationEvent
from tests.api.helpers import ApiClient, assert_envelope
from tests.capture.helpers import items_of

pytestmark = pytest.mark.django_db
BATCHES = "/api/v1/capture/batches"


@pytest.fixture
def api(client, make_token):
    def as_token(agent="claude-code", **options) -> ApiClient:
        return ApiClient(client, make_token(agent, **options)[1])

    return as_token


@pytest.fixture
def post(django_capture_on_commit_callbacks):
    """POST a batch; the task enqueued on commit runs (eagerly) before this returns."""

    def send(api_client, body, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return api_client.post(BATCHES, body, **kwargs)

    return send


def body(source="claude_code", thread_id="sess-1", **extra):
    return {"source": source, "thread_id": thread_id, "items": items_of(source), **extra}


def test_a_posted_batch_is_accepted_processed_and_readable(api, post):
    agent = api()
    response = post(
        agent, body(project_key="github:ada/continuity", workspace="/home/ada/src/continuity")
    )

    assert response.status_code == 202, response.content
    accepted = response.json()
    assert (
        accepted["thread"]["source"] == "claude_code"
        and accepted["thread"]["thread_id"] == "sess-1"
    )
    status = agent.get(f"{BATCHES}/{accepted['batch_id']}").json()
    assert status["status"] == "done" and status["counts"]["events"] == 9
    assert status["redactions"] == {"card_number": 1, "password_assignment": 1}
    assert status["item_count"] == 18 and status["last_error"] == ""
    thread = agent.get("/api/v1/capture/threads/claude_code/sess-1").json()
    assert thread["checkpoint"] == {"run_id": "u-7", "seq": 1}
    assert (thread["event_count"], thread["project_key"], thread["pending_batches"]) == (
        9, "github:ada/continuity", 0,
    )  # fmt: skip


def test_chinese_text_survives_the_round_trip(api, post):
    response = post(api(), body("text", thread_id="会话-一"))
    assert response.status_code == 202
    assert ConversationEvent.objects.filter(text="以后回答请用中文。").exists()
    thread = api().get("/api/v1/capture/threads/text/会话-一").json()
    assert thread["thread_id"] == "会话-一" and thread["event_count"] == 6


def test_more_than_1000_items_is_413_and_stores_nothing(api, post):
    response = post(api(), {**body("generic"), "items": [{"role": "user", "text": "hi"}] * 1001})
    error = assert_envelope(response, 413, "PAYLOAD_TOO_LARGE")
    assert "1,000" in error["message"]
    assert not CaptureBatch.objects.exists() and not CaptureThread.objects.exists()


@pytest.mark.parametrize("megabytes", [2.1, 3])  # under and over Django's own 2.5 MB cap
def test_a_body_over_2_mb_is_413_and_stores_nothing(api, post, megabytes):
    text = "记" * int(megabytes * 1024 * 1024 / 3)  # three UTF-8 bytes a character
    response = post(api(), {**body("generic"), "items": [{"role": "user", "text": text}]})
    assert_envelope(response, 413, "PAYLOAD_TOO_LARGE")
    assert not CaptureBatch.objects.exists() and not CaptureThread.objects.exists()


def test_exactly_1000_items_are_accepted(api, post):
    items = [
        {"role": "user" if n % 2 == 0 else "assistant", "text": f"message {n}"} for n in range(1000)
    ]
    response = post(api(), {**body("generic"), "items": items})
    assert response.status_code == 202
    assert ConversationEvent.objects.count() == 1000


def test_a_token_without_capture_write_cannot_post_or_read(api, post):
    reader = api("reader", scopes=["memories:read"])
    assert_envelope(post(reader, body()), 403, "FORBIDDEN")
    assert not CaptureBatch.objects.exists()


def test_another_owner_sees_none_of_my_batches_or_threads(api, post, other_owner):
    batch_id = post(api(), body()).json()["batch_id"]
    stranger = api("grace-agent", user=other_owner)

    assert_envelope(stranger.get(f"{BATCHES}/{batch_id}"), 404, "NOT_FOUND")
    assert_envelope(stranger.get("/api/v1/capture/threads/claude_code/sess-1"), 404, "NOT_FOUND")
    # Grace's own thread of the same id is hers, separate from Ada's.
    assert post(stranger, body()).status_code == 202
    assert CaptureThread.objects.filter(external_id="sess-1").count() == 2
    assert ConversationEvent.objects.count() == 18


def test_a_project_restricted_token_writes_and_reads_only_its_projects(api, post):
    restricted = api("codex", allowed_projects=["github:ada/shop"])
    assert_envelope(post(restricted, body("codex")), 403, "FORBIDDEN")  # no project_key
    assert post(restricted, body("codex", project_key="github:ada/shop")).status_code == 202

    post(api(), body("codex", thread_id="elsewhere", project_key="github:ada/secret"))
    assert_envelope(restricted.get("/api/v1/capture/threads/codex/elsewhere"), 404, "NOT_FOUND")
    assert_envelope(
        post(restricted, body("codex", thread_id="elsewhere", project_key="github:ada/shop")),
        403, "FORBIDDEN",
    )  # fmt: skip


def test_a_dry_run_answers_counts_and_stores_no_events(api, post):
    agent = api()
    batch_id = post(agent, body(dry_run=True)).json()["batch_id"]
    status = agent.get(f"{BATCHES}/{batch_id}").json()
    assert status["dry_run"] and status["status"] == "done" and status["counts"]["events"] == 9
    assert ConversationEvent.objects.count() == 0
    assert agent.get("/api/v1/capture/threads/claude_code/sess-1").json()["checkpoint"]["seq"] == -1


def test_bad_items_are_counted_as_skipped_not_a_server_error(api, post):
    agent = api()
    response = post(
        agent, {"source": "codex", "thread_id": "t", "items": [1, "x", None, {"type": []}]}
    )
    assert response.status_code == 202
    status = agent.get(f"{BATCHES}/{response.json()['batch_id']}").json()
    assert status["status"] == "done" and status["counts"]["skipped"] == 4
    assert status["counts"]["skipped_reasons"] == {"invalid": 4}


def test_the_raw_items_are_gone_once_processed(api, post):
    post(api(), body())
    batch = CaptureBatch.objects.get()
    assert batch.items is None
    assert "Zq8!vR2#kL9" not in json.dumps(
        list(ConversationEvent.objects.values("text")), ensure_ascii=False
    )


def test_no_agent_appends_to_another_agents_thread_or_relabels_its_project(api, post):
    claude, codex = api("claude-code"), api("codex")
    assert post(claude, body(project_key="github:ada/shop")).status_code == 202

    refused = post(codex, body(project_key="github:ada/other"))

    assert_envelope(refused, 403, "FORBIDDEN")
    thread = CaptureThread.objects.get(external_id="sess-1")
    assert (thread.agent_name, thread.project_key) == ("claude-code", "github:ada/shop")
    assert_envelope(codex.get("/api/v1/capture/threads/claude_code/sess-1"), 404, "NOT_FOUND")


def test_a_restricted_token_reaches_no_thread_or_batch_without_a_project(api, post):
    open_token = api("codex")
    batch_id = post(open_token, body("codex", thread_id="loose")).json()["batch_id"]
    restricted = api("codex", allowed_projects=["github:ada/shop"])

    assert_envelope(restricted.get("/api/v1/capture/threads/codex/loose"), 404, "NOT_FOUND")
    assert_envelope(restricted.get(f"{BATCHES}/{batch_id}"), 404, "NOT_FOUND")
    assert_envelope(
        post(restricted, body("codex", thread_id="loose", project_key="github:ada/shop")),
        403, "FORBIDDEN",
    )  # fmt: skip
    assert CaptureThread.objects.get(external_id="loose").project_key == ""
