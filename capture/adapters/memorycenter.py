"""MemoryCenter-style turns: `{"user_message": ..., "llm_message": ..., "id"?, "timestamp"?}`.

Each item is one whole turn: a run of the user's message and the model's reply (its final
reply). The run is named by the item's `id` (or `turn_id`), else by a hash of its timestamp
and the user's message.
"""

from __future__ import annotations

from capture.adapters.base import Piece, Skip, stable_key, timestamp
from capture.markers import strip_fenced
from capture.models import Role


def read(item, index: int) -> list[Piece]:
    if not isinstance(item, dict):
        raise Skip("invalid")
    user, reply = item.get("user_message"), item.get("llm_message")
    if not isinstance(user, str) and not isinstance(reply, str):
        raise Skip("invalid")
    at = timestamp(item.get("timestamp") or item.get("created_at"))
    user = strip_fenced(user) if isinstance(user, str) else ""
    reply = strip_fenced(reply) if isinstance(reply, str) else ""
    if not user and not reply:
        raise Skip("empty")
    run = item.get("id") or item.get("turn_id") or stable_key(item.get("timestamp"), user, reply)
    pieces = [Piece(Role.USER, text=user, occurred_at=at, opens_run=True, run_key=str(run))]
    if reply:
        pieces.append(Piece(Role.ASSISTANT, text=reply, occurred_at=at, final=True))
    if not user:  # a reply alone still starts its own run, but holds no prompt
        pieces = [Piece(Role.ASSISTANT, text=reply, occurred_at=at, opens_run=True,
                        run_key=str(run), final=True)]  # fmt: skip
    return pieces
