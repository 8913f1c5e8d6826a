"""A fake Generative Language API for Gemini CLI (`GOOGLE_GEMINI_BASE_URL`).

Gemini CLI streams each step of a turn from
`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (server-sent
`GenerateContentResponse` chunks) and makes side calls of its own: `:generateContent` with
a JSON schema (choosing a model, and similar checks) and `:countTokens`.

The script (`play`) is read against the request itself, so a retried request gets the same
answer: while the request's `contents` hold fewer `functionResponse` parts than the script
has calls, the answer is the next call (a `functionCall` part); then it is the text. Each
`gemini -p` run is a new conversation, so the count starts again with every run. A side call
gets an object that fits its schema, so it succeeds without changing what the turn does."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tests.agents.fake_model import FakeModel, Request

USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


@dataclass
class Script:
    calls: list[tuple[str, dict]] = field(default_factory=list)  # (function name, args)
    text: str = "Done."


class FakeGemini(FakeModel):
    def __init__(self):
        super().__init__()
        self.script = Script()

    def play(self, *calls: tuple[str, dict], text: str = "Done.") -> None:
        """The next runs' model: it asks for `calls` one by one, then answers `text`."""
        self.script = Script(list(calls), text)

    # --- what the client sent ---------------------------------------------------------

    def turns(self) -> list[Request]:
        """The streamed requests so far, in order: one per step of a turn."""
        return [r for r in list(self.requests) if "streamGenerateContent" in r.path]

    @staticmethod
    def declarations(request: Request) -> dict[str, dict]:
        """{name: declaration} of every function the request offers the model."""
        return {
            declaration["name"]: declaration
            for tool in (request.body or {}).get("tools") or []
            for declaration in tool.get("functionDeclarations") or []
        }

    @staticmethod
    def function_responses(request: Request) -> list[dict]:
        """Every `functionResponse` part of the request's contents, oldest first."""
        return [
            part["functionResponse"]
            for content in (request.body or {}).get("contents") or []
            for part in content.get("parts") or []
            if "functionResponse" in part
        ]

    # --- answers ----------------------------------------------------------------------

    def reply(self, request: Request) -> tuple[int, dict, bytes]:
        if "streamGenerateContent" in request.path:
            script = self.script
            done = len(self.function_responses(request))
            if done < len(script.calls):
                name, args = script.calls[done]
                part = {"functionCall": {"name": name, "args": args}}
            else:
                part = {"text": script.text}
            return self.sse_reply([(None, response(part))])
        if ":countTokens" in request.path:
            return self.json_reply({"totalTokens": len(request.raw) // 4 + 1})
        if ":generateContent" in request.path:
            config = (request.body or {}).get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            return self.json_reply(
                response({"text": json.dumps(sample(schema)) if schema else "OK"})
            )
        return self.json_reply({"error": {"code": 404, "message": "not served here"}}, 404)


def response(part: dict) -> dict:
    """A whole `GenerateContentResponse` with one candidate holding `part`."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": USAGE,
        "modelVersion": "fake-gemini",
    }


def sample(schema: dict | None):
    """A value that fits a JSON schema: the first of an enum, the lower bound of a number,
    every property of an object."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        return {name: sample(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "simple"
