"""A fake OpenAI Responses API for Codex (`wire_api = "responses"`): `POST /responses`
answered as a server-sent event stream, scripted by `FakeOpenAI.calls`.

The script is read against the request itself, so a retried request gets the same answer:
while the request's `input` holds fewer `function_call_output` items for the script's calls
than there are calls, the answer is the next call; then it is `text`. Codex offers an MCP
server's tools as one `namespace` tool named `mcp__<server>`, whose `tools` are the
server's own names; a call to one names the tool and carries that `namespace`."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from tests.agents.fake_model import FakeModel, Request


@dataclass
class Call:
    """One function call the fake model makes: `namespace` is `mcp__<server>` for an MCP
    tool, "" for one of Codex's own."""

    name: str
    arguments: dict
    namespace: str = ""
    call_id: str = ""


@dataclass
class Script:
    calls: list[Call] = field(default_factory=list)
    text: str = "Done."


class FakeOpenAI(FakeModel):
    """`base_url` for a `[model_providers.<name>]` entry is `model.url + "/v1"`."""

    def __init__(self):
        super().__init__()
        self.script = Script()
        self._counter = 0
        self._counter_lock = threading.Lock()

    def play(self, *calls: Call, text: str = "Done.") -> None:
        """What the model answers from now on (each call gets its own call id)."""
        for number, call in enumerate(calls):
            call.call_id = call.call_id or f"call_{self._next()}_{number}"
        self.script = Script(list(calls), text)

    def _next(self) -> int:
        with self._counter_lock:
            self._counter += 1
            return self._counter

    # --- what Codex sent ----------------------------------------------------------------

    def turns(self) -> list[Request]:
        """The model requests (POST …/responses), in order."""
        return [r for r in self.requests if r.method == "POST" and r.path.endswith("/responses")]

    @staticmethod
    def tools(request: Request) -> dict[str, list[str]]:
        """{namespace ("" for top-level functions): tool names} offered in one request."""
        offered: dict[str, list[str]] = {}
        for tool in (request.body or {}).get("tools", []):
            if tool.get("type") == "namespace":
                offered[tool["name"]] = [inner.get("name") for inner in tool.get("tools", [])]
            elif tool.get("name"):
                offered.setdefault("", []).append(tool["name"])
        return offered

    @staticmethod
    def outputs(request: Request) -> dict[str, str]:
        """{call id: output text} of the function call outputs a request carries."""
        found = {}
        for item in (request.body or {}).get("input", []):
            if item.get("type") == "function_call_output":
                output = item.get("output")
                if not isinstance(output, str):
                    output = json.dumps(output, ensure_ascii=False)
                found[item.get("call_id")] = output
        return found

    # --- answering -----------------------------------------------------------------------

    def reply(self, request: Request) -> tuple[int, dict, bytes]:
        if request.method != "POST" or not request.path.endswith("/responses"):
            return self.json_reply({"object": "list", "data": []})
        script = self.script
        answered = set(self.outputs(request))
        pending = [call for call in script.calls if call.call_id not in answered]
        response_id = f"resp_{self._next()}"
        item = self._call_item(pending[0]) if pending else self._text_item(script.text)
        return self.sse_reply(self.stream(response_id, item))

    @staticmethod
    def _call_item(call: Call) -> dict:
        item = {
            "type": "function_call", "id": f"fc_{call.call_id}", "status": "completed",
            "call_id": call.call_id, "name": call.name,
            "arguments": json.dumps(call.arguments, ensure_ascii=False),
        }  # fmt: skip
        return item | ({"namespace": call.namespace} if call.namespace else {})

    def _text_item(self, text: str) -> dict:
        return {
            "type": "message", "id": f"msg_{self._next()}", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }  # fmt: skip

    @staticmethod
    def stream(response_id: str, item: dict) -> list[tuple[str, dict]]:
        """The events of one response holding one output item."""
        response = {"id": response_id, "object": "response", "status": "in_progress"}
        events = [
            ("response.created", {"type": "response.created", "response": response}),
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": 0, "item": item}),
        ]  # fmt: skip
        if item["type"] == "message":
            events.append(("response.output_text.delta", {
                "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
                "content_index": 0, "delta": item["content"][0]["text"],
            }))  # fmt: skip
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}  # fmt: skip
        completed = response | {"status": "completed", "output": [item], "usage": usage}
        return [
            *events,
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": completed}),
        ]  # fmt: skip
