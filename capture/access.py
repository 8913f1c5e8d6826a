"""Which capture threads an agent may append to or read: one rule for ingestion and status.

A thread belongs to the agent that opened it (its token's bound agent name), and a token
restricted to projects reaches only threads labelled with one of them — a thread without a
project is outside every restriction. So no token can add events to another agent's thread,
re-label its project, or read a thread or batch beyond its projects. The owner sees all.
"""

from __future__ import annotations

from capture.models import CaptureThread
from foundation.actors import Actor


def may_use_thread(actor: Actor, thread: CaptureThread) -> bool:
    if actor.is_owner:
        return True
    if thread.agent_name and thread.agent_name != actor.agent_name:
        return False
    if actor.token.allowed_projects:
        return bool(thread.project_key) and actor.may_touch_project(thread.project_key)
    return True
