"""A scripted Messages API for Claude Code: `ANTHROPIC_BASE_URL` points at it.

Each `claude -p` turn is given a plan (`model.plan(...)`): an optional tool to call with
its input, and the text to answer once the tool's result came back. The conversation
request (the one offering tools) is answered from the plan: a `tool_use` block first, then,
when the request carries the `tool_result` of that call, the final text. Every other
request Claude Code makes on the side (a title, a token count, a quota probe) gets a short,
valid answer, so the turn never waits on it. Everything is recorded (FakeModel)."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass

from tests.agents.fake_model import FakeModel, Request

MODEL = "claude-sonnet-4-5"


@dataclass
class Plan:
    tool: str | None  # the full name Claude Code offers, mcp__<server>__<tool>
    input: dict
    answer: str


class FakeAnthropic(FakeModel):
    def __init__(self):
        super().__init__()
        self._plan = Plan(None, {}, "Nothing to do.")
        self._ids = itertools.count(1)

    def plan(self, answer: str, tool: str | None = None, **tool_input) -> None:
        """What the next turn does: call `tool` with `tool_input` (when given), then say
        `answer`."""
        self._plan = Plan(tool, tool_input, answer)

    # --- what was sent ---------------------------------------------------------------

    def conversations(self, session: str | None = None) -> list[Request]:
        """The requests of the conversation itself (those that offer tools), in order; of
        one session only when given (Claude Code names it in a header)."""
        return [
            r for r in self.requests
            if is_messages(r) and (r.body or {}).get("tools")
            and session in (None, header(r, "X-Claude-Code-Session-Id"))
        ]  # fmt: skip

    def offered_tools(self) -> list[str]:
        """Tool names the last conversation request offered the model."""
        [*_, last] = self.conversations()
        return [tool["name"] for tool in last.body["tools"]]

    def tool_results(self) -> list[dict]:
        """Every tool_result block the client sent back, in order, without repeats (each
        later request repeats the earlier conversation)."""
        seen, found = set(), []
        for request in self.conversations():
            for block in blocks(request.body.get("messages", [])):
                if block.get("type") == "tool_result" and block["tool_use_id"] not in seen:
                    seen.add(block["tool_use_id"])
                    found.append(block)
        return found

    # --- answering -------------------------------------------------------------------

    def reply(self, request: Request) -> tuple[int, dict, bytes]:
        if request.path.startswith("/v1/messages/count_tokens"):
            return self.json_reply({"input_tokens": max(len(request.raw) // 4, 1)})
        if not is_messages(request):
            # Anything else (a model list, a quota or settings probe): an empty success.
            return self.json_reply({"data": [], "has_more": False})
        body = request.body or {}
        if body.get("tools"):
            content, stop = self._conversation_step(body)
        else:
            content, stop = [{"type": "text", "text": "Continuity check"}], "end_turn"
        model = body.get("model") or MODEL
        if body.get("stream"):
            return self.sse_reply(stream(self._message_id(), model, content, stop))
        return self.json_reply(message(self._message_id(), model, content, stop))

    def _conversation_step(self, body: dict) -> tuple[list[dict], str]:
        plan = self._plan
        last = (body.get("messages") or [{}])[-1]
        answered = any(b.get("type") == "tool_result" for b in blocks([last]))
        if plan.tool and not answered:
            call = {"type": "tool_use", "id": f"toolu_{next(self._ids):04d}", "name": plan.tool,
                    "input": plan.input}  # fmt: skip
            return [call], "tool_use"
        return [{"type": "text", "text": plan.answer}], "end_turn"

    def _message_id(self) -> str:
        return f"msg_fake{next(self._ids):06d}"


def header(request: Request, name: str) -> str | None:
    return next((v for k, v in request.headers.items() if k.lower() == name.lower()), None)


def is_messages(request: Request) -> bool:
    return request.method == "POST" and request.path.split("?")[0] == "/v1/messages"


def blocks(messages: list[dict]) -> list[dict]:
    """Every content block of `messages` (a plain string content is one text block)."""
    found = []
    for entry in messages:
        content = entry.get("content")
        found += [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    return found


def result_text(block: dict) -> str:
    """The text a tool_result block carries (a string, or a list of text blocks)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


USAGE = {"input_tokens": 20, "output_tokens": 10, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 0}  # fmt: skip


def message(message_id: str, model: str, content: list[dict], stop: str) -> dict:
    return {"id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": None, "usage": USAGE}  # fmt: skip


def stream(message_id: str, model: str, content: list[dict], stop: str) -> list:
    """The server-sent events of one message, as the Messages API streams it."""
    start = message(message_id, model, [], None) | {"usage": USAGE | {"output_tokens": 1}}
    events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(content):
        if block["type"] == "text":
            opened, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        else:
            opened = block | {"input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": opened}),
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]  # fmt: skip
    events += [
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop,
                           "stop_sequence": None}, "usage": {"output_tokens": 10}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return events
