"""Codex CLI rollout JSONL lines (docs/agent-formats.md §2), one parsed line per item.

Kept from `response_item`s: user messages (a genuine prompt opens a run), assistant
messages (`phase: "final_answer"` marks the final reply when the build writes it), function
and custom tool calls and their outputs as markers, reasoning as a marker only (its summary
is never stored). `compacted` summaries become compaction events. Skipped: `event_msg`
lines (they repeat the response items: every prompt and reply appears twice), session and
turn metadata, developer messages and the harness's own user messages (AGENTS.md,
environment context, hook prompts), and Continuity's injected memory blocks.
"""

from __future__ import annotations

from capture.adapters.base import Piece, Skip, identity_of, stable_key, timestamp
from capture.markers import has_injection, strip_fenced
from capture.models import ItemType, Role

HARNESS_PREFIXES = (
    "<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
    "<permissions instructions>", "<hook_prompt", "Another language model started to solve",
)  # fmt: skip
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise Skip("invalid")
    return "\n".join(
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") in ("input_text", "output_text", "text")
        and isinstance(block.get("text"), str)
    )


def _message(payload: dict, at, when) -> list[Piece]:
    role = payload.get("role")
    if role == "developer" or role == "system":
        raise Skip("harness_text")
    raw = _text(payload.get("content"))
    text = strip_fenced(raw)
    if not text:
        raise Skip("injected_context" if has_injection(raw) else "empty")
    if role == "user":
        if text.startswith(HARNESS_PREFIXES):
            raise Skip("harness_text")
        return [
            Piece(
                Role.USER, text=text, occurred_at=at, opens_run=True, run_key=stable_key(when, text)
            )
        ]
    if role == "assistant":
        phase = payload.get("phase")
        final = None if phase is None else phase == "final_answer"
        return [Piece(Role.ASSISTANT, text=text, occurred_at=at, final=final)]
    raise Skip("invalid")


def read(item, index: int) -> list[Piece]:
    if not isinstance(item, dict):
        raise Skip("invalid")
    kind, payload = item.get("type"), item.get("payload")
    at = timestamp(item.get("timestamp"))
    if kind == "compacted":
        message = payload.get("message") if isinstance(payload, dict) else None
        if not isinstance(message, str) or not message.strip():
            raise Skip("empty")
        return [Piece(Role.COMPACTION, ItemType.COMPACTION_SUMMARY, strip_fenced(message), at)]
    if kind != "response_item":
        raise Skip("not_conversation" if isinstance(kind, str) else "invalid")
    if not isinstance(payload, dict):
        raise Skip("invalid")
    item_type = payload.get("type")
    if item_type == "message":
        return _message(payload, at, item.get("timestamp"))
    if item_type == "reasoning":
        return [
            Piece(Role.ASSISTANT, ItemType.REASONING, occurred_at=at, identity=identity_of(payload))
        ]
    if item_type in CALLS:
        return [Piece(Role.TOOL, ItemType.TOOL_CALL, occurred_at=at, identity=identity_of(payload))]
    if item_type in OUTPUTS:
        return [
            Piece(Role.TOOL, ItemType.TOOL_RESULT, occurred_at=at, identity=identity_of(payload))
        ]
    raise Skip("not_conversation")
