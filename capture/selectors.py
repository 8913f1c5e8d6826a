"""Reads of the inbox: the owner's candidates, filtered; never-remember patterns; rejections;
the strip markers in force for an owner's captures."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.utils.translation import gettext_noop

from capture.markers import Pair, configured_pairs
from capture.models import (
    Candidate,
    CandidateStatus,
    CaptureThread,
    NeverRememberPattern,
    RejectedFingerprint,
    StripMarker,
)
from foundation.actors import Actor
from foundation.errors import AMONG, PRINTABLE, validation_error
from foundation.paging import Page, keyset_page, query_key

MAX_FILTER_CHARS = 300


def _text_filter(value: str, name: str) -> str:
    value = (value or "").strip()
    if len(value) > MAX_FILTER_CHARS or any(unicodedata.category(c) == "Cc" for c in value):
        raise validation_error(PRINTABLE, field=name, name=name, limit=MAX_FILTER_CHARS)
    return value


def candidates_for_owner(
    *, actor: Actor, status: str = "", agent: str = "", project: str = ""
) -> QuerySet[Candidate]:
    """The owner's candidates (unordered: callers page them). `agent` keeps those an agent's
    conversation supports; `project` those scoped to that project key."""
    actor.require_owner(gettext_noop("review captured candidates"))
    queryset = Candidate.objects.filter(owner=actor.user)
    if status:
        if status not in CandidateStatus.values:
            raise validation_error(
                AMONG, field="status", name="status", choices=", ".join(CandidateStatus.values)
            )
        queryset = queryset.filter(status=status)
    agent = _text_filter(agent, "agent")
    if agent:
        if connection.vendor == "postgresql":
            queryset = queryset.filter(agents__contains=[agent])
        else:
            # SQLite has no JSON containment: match the name as json.dumps wrote it (quoted,
            # non-ASCII escaped) in the list's text.
            queryset = queryset.annotate(agents_text=Cast("agents", TextField())).filter(
                agents_text__contains=json.dumps(agent)
            )
    project = _text_filter(project, "project")
    if project:
        queryset = queryset.filter(scope_type="project", scope_key=project)
    return queryset


def pending_count(user) -> int:
    return Candidate.objects.filter(owner=user, status=CandidateStatus.PENDING).count()


def patterns_for_owner(*, actor: Actor) -> QuerySet[NeverRememberPattern]:
    actor.require_owner(gettext_noop("manage never-remember patterns"))
    return NeverRememberPattern.objects.filter(owner=actor.user)


def strip_markers_for_owner(*, actor: Actor) -> QuerySet[StripMarker]:
    actor.require_owner(gettext_noop("manage capture strip markers"))
    return StripMarker.objects.filter(owner=actor.user)


def strip_markers_in_force(owner_id) -> tuple[Pair, ...]:
    """The instance's pairs, then the owner's own: what parsing this owner's batches strips."""
    own = StripMarker.objects.filter(owner_id=owner_id).values_list("start", "end")
    return tuple(dict.fromkeys((*configured_pairs(), *own)))


def rejections_for_owner(*, actor: Actor) -> QuerySet[RejectedFingerprint]:
    actor.require_owner(gettext_noop("review captured candidates"))
    return RejectedFingerprint.objects.filter(owner=actor.user)


# --- reads behind the dashboard's Inbox tab --------------------------------------------------

INBOX_PATTERNS_SHOWN = 200


def _moment(value) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        return None


def with_threads(candidates: list[Candidate]) -> list[Candidate]:
    """Attach each evidence item's thread (source and session) with one query per page."""
    ids = {item.get("thread_id") for c in candidates for item in c.evidence}
    threads = CaptureThread.objects.in_bulk([pk for pk in ids if isinstance(pk, int)])
    for candidate in candidates:
        candidate.dash_evidence = [
            {**item, "thread": threads.get(item.get("thread_id")), "when": _moment(item.get("at"))}
            for item in candidate.evidence
        ]
    return candidates


@dataclass
class Inbox:
    page: Page
    patterns: list[NeverRememberPattern]


def inbox_for_owner(*, actor: Actor, cursor: str | None) -> Inbox:
    """A page of pending candidates, newest first, with their evidence threads; and the
    owner's never-remember phrases."""
    pending = candidates_for_owner(actor=actor, status=CandidateStatus.PENDING)
    query = query_key("dashboard", "inbox", actor.user.pk)
    page = keyset_page(pending.select_related("replaces"), cursor, query=query)
    with_threads(page.items)
    return Inbox(page, list(patterns_for_owner(actor=actor)[:INBOX_PATTERNS_SHOWN]))
