"""Blocks other tools inject into prompts (memory plug-ins, editor rules) are stripped from
captured turns like Continuity's own: nothing is proposed from them, and the person's own
words around them are kept. Batches go in through the agent API with a real token."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from capture.models import Candidate, ConversationEvent, StripMarker
from continuity.runtime import marker_pairs
from tests.api.helpers import ApiClient

pytestmark = pytest.mark.django_db
BATCHES = "/api/v1/capture/batches"

INJECTED = "Remember that the staging database listens on port 6666."
OWN = "记住，生产库在 10.0.0.5 上。"


@pytest.fixture
def send(client, make_token, django_capture_on_commit_callbacks):
    """POST a one-turn batch as an agent; the task enqueued on commit runs before it returns."""
    raw = make_token("claude-code")[1]

    def post(source: str, items: list, thread_id: str = "s-1"):
        with django_capture_on_commit_callbacks(execute=True):
            response = ApiClient(client, raw).post(
                BATCHES, {"source": source, "thread_id": thread_id, "items": items}
            )
        assert response.status_code == 202, response.content
        return response

    return post


def claude_turn(text: str) -> list:
    return [
        {
            "type": "user", "uuid": "u-1", "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {"role": "user", "content": text}, "isSidechain": False,
        },
        {
            "type": "assistant", "uuid": "a-1", "timestamp": "2026-11-20T10:00:05.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "好的。"}]},
            "isSidechain": False,
        },
    ]  # fmt: skip


def codex_turn(text: str) -> list:
    return [
        {
            "timestamp": "2026-11-21T08:01:00.000Z", "type": "response_item",
            "payload": {
                "type": "message", "role": "user",
                "content": [{"type": "input_text", "text": text}],
            },
        },
        {
            "timestamp": "2026-11-21T08:01:05.000Z", "type": "response_item",
            "payload": {
                "type": "message", "role": "assistant", "phase": "final_answer",
                "content": [{"type": "output_text", "text": "好的。"}],
            },
        },
    ]  # fmt: skip


def user_texts() -> list[str]:
    return list(ConversationEvent.objects.filter(role="user").values_list("text", flat=True))


def contents() -> list[str]:
    return list(Candidate.objects.values_list("content", flat=True))


@pytest.mark.parametrize(
    ("source", "turn", "start", "end"),
    [
        ("claude_code", claude_turn, "<supermemory-context>", "</supermemory-context>"),
        ("claude_code", claude_turn, "<claude-mem-context>", "</claude-mem-context>"),
        ("codex", codex_turn, "<memory>", "</memory>"),
        ("codex", codex_turn, "<user_rules>", "</user_rules>"),
    ],
)
def test_a_foreign_block_yields_no_candidate_and_the_users_own_words_are_kept(
    send, source, turn, start, end
):
    send(source, turn(f"前言：{start}\n{INJECTED}\n{end}\n{OWN}"))

    assert user_texts() == [f"前言：\n{OWN}"]
    assert contents() == ["生产库在 10.0.0.5 上"]
    assert not any("6666" in text for text in user_texts() + contents())


def test_without_the_marker_the_same_text_would_have_been_proposed(send, settings):
    """The control: the block's sentence is a signal, so only stripping keeps it out."""
    settings.CONTINUITY_CAPTURE_STRIP_MARKERS = []
    send("claude_code", claude_turn(f"<memory>\n{INJECTED}\n</memory>\n{OWN}"))

    assert "The staging database listens on port 6666" in contents()


def test_an_owners_own_marker_is_stripped_from_that_owners_captures_only(
    send, owner, other_owner, client, make_token, django_capture_on_commit_callbacks
):
    StripMarker.objects.create(owner=owner, start="[[cursor-rules]]", end="[[/cursor-rules]]")
    text = f"[[cursor-rules]]\n{INJECTED}\n[[/cursor-rules]]\n{OWN}"
    send("claude_code", claude_turn(text))
    assert contents() == ["生产库在 10.0.0.5 上"]

    other = make_token("claude-code", user=other_owner)[1]
    with django_capture_on_commit_callbacks(execute=True):
        ApiClient(client, other).post(
            BATCHES, {"source": "claude_code", "thread_id": "s-2", "items": claude_turn(text)}
        )
    others = Candidate.objects.filter(owner=other_owner).values_list("content", flat=True)
    assert "The staging database listens on port 6666" in others


def test_a_foreign_start_marker_without_its_end_is_the_person_s_own_words(send):
    text = f"{OWN}\nAdd a <memory> element to the export schema, from now on."
    send("codex", codex_turn(text))

    assert user_texts() == [text]


def test_a_turn_that_is_only_a_foreign_block_is_skipped(send):
    response = send("codex", codex_turn(f"<memory>\n{INJECTED}\n</memory>"))

    assert user_texts() == [] and contents() == []
    assert response.status_code == 202


@pytest.mark.parametrize(
    "value",
    ["<memory>", "<memory>|", "|</memory>", f"<{'m' * 100}>|</m>", "<a>|</a>,<b\tx>|</b>"],
)
def test_a_malformed_environment_list_refuses_to_start_and_names_the_pair(value):
    with pytest.raises(ImproperlyConfigured, match="CONTINUITY_CAPTURE_STRIP_MARKERS"):
        marker_pairs(value)


def test_the_environment_list_is_read_as_start_end_pairs():
    assert marker_pairs(" <a>|</a> ,, [x] | [/x] ,<a>|</a>") == [("<a>", "</a>"), ("[x]", "[/x]")]
