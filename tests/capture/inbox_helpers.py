"""Builders for inbox tests: a capture thread and its events, stored directly (not through
ingestion), and candidates proposed from them by the real extraction."""

from __future__ import annotations

import hashlib
import itertools

from capture.extraction import propose_candidates
from capture.models import Candidate, CaptureThread, ConversationEvent

_seq = itertools.count()


def thread_of(
    owner, external_id="session-1", *, agent="claude-code", project_key="", source="claude_code"
):
    thread, _ = CaptureThread.objects.get_or_create(
        owner=owner, source=source, external_id=external_id,
        defaults={"agent_name": agent, "project_key": project_key},
    )  # fmt: skip
    return thread


def event(thread, role, text, *, final=True, marker=False, run="run-1", seq=None):
    seq = next(_seq) if seq is None else seq
    digest = hashlib.sha256(f"{thread.pk}|{run}|{seq}|{role}|{text}".encode()).hexdigest()
    return ConversationEvent.objects.create(
        owner=thread.owner, thread=thread, fingerprint=digest, run_id=run, seq=seq, role=role,
        is_marker=marker, is_final=final if role == "assistant" else False, text="" if marker else text,
        item_type="tool_call" if marker else "message",
    )  # fmt: skip


def conversation(thread, *turns):
    """[("user", text), ("assistant", text), ...] stored in order."""
    return [event(thread, role, text) for role, text in turns]


def propose(
    owner,
    user_text,
    *,
    reply="Noted.",
    external_id="session-1",
    agent="claude-code",
    project_key="",
):
    thread = thread_of(owner, external_id, agent=agent, project_key=project_key)
    events = conversation(thread, ("user", user_text), ("assistant", reply))
    count = propose_candidates(thread, events, agent_name=agent)
    return count, thread


def pending(owner):
    return list(Candidate.objects.filter(owner=owner, status="pending").order_by("created_at"))
