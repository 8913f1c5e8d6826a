"""The client's request bodies are always valid UTF-8 JSON."""

from __future__ import annotations

import json

from continuity_client.http import encode_json


def test_an_unpaired_surrogate_in_a_transcript_becomes_a_replacement_character():
    body = {"items": [{"role": "user", "text": "broken \ud83d here, fine 缓存 🚀"}]}
    data = encode_json(body)
    decoded = json.loads(data.decode("utf-8"))
    text = decoded["items"][0]["text"]
    assert "\ud83d" not in text and "\ufffd" in text
    assert text.endswith("fine 缓存 🚀")


def test_ordinary_text_is_unchanged():
    body = {"text": "Use uv — 以后用 uv"}
    assert json.loads(encode_json(body)) == body
