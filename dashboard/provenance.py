"""Where each memory on a page came from, as the owner reads it: a label and a link.

A memory approved from the inbox links to the candidate the owner approved (its evidence:
the captured conversation's sentences); one an agent wrote names the agent and the token
it used, linking to that token; an import names what it was imported from. The internal
`continuity:capture/thread/…/event/…` provenance URIs are never shown as they are: a
link to one reads "captured conversation" and points at the same candidate. Reads only,
one query per kind of origin for the whole page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import PersonalAccessToken
from capture.models import Candidate, CaptureThread
from memories.models import Memory, Origin

CAPTURE_URI = re.compile(r"^continuity:capture/thread/(?P<thread>\d+)/event/(?P<event>\d+)$")


@dataclass(frozen=True)
class OriginLabel:
    text: str
    url: str = ""


def _threads(candidates: dict) -> dict[int, CaptureThread]:
    ids = {
        int(item["thread_id"])
        for candidate in candidates.values()
        for item in candidate.evidence[:1]
        if str(item.get("thread_id", "")).isdecimal()
    }
    return {thread.pk: thread for thread in CaptureThread.objects.filter(pk__in=ids)}


def _capture_label(candidate: Candidate | None, threads: dict) -> OriginLabel:
    if candidate is None:
        return OriginLabel(_("Approved from a captured conversation"))
    url = reverse("dashboard:candidate", args=[candidate.pk])
    first = candidate.evidence[0] if candidate.evidence else {}
    thread = (
        threads.get(int(first["thread_id"]))
        if str(first.get("thread_id", "")).isdecimal()
        else None
    )
    agent = ", ".join(candidate.agents) or (thread.agent_name if thread else "")
    if thread is not None:
        where = thread.workspace or thread.project_key or thread.get_source_display()
        text = _("Approved from a conversation with %(agent)s (%(where)s)") % {
            "agent": agent or thread.get_source_display(), "where": where,
        }  # fmt: skip
    elif agent:
        text = _("Approved from a conversation with %(agent)s") % {"agent": agent}
    else:
        text = _("Approved from a captured conversation")
    return OriginLabel(text, url)


def _agent_label(memory: Memory, tokens: dict) -> OriginLabel:
    token = tokens.get(memory.created_by_token_id)
    agent = memory.source_agent or (token.agent_name if token else "")
    if token is None:
        return OriginLabel(_("Written by %(agent)s") % {"agent": agent or _("an agent")})
    url = reverse("dashboard:tokens") + f"#token-{token.pk}"
    return OriginLabel(
        _("Written by %(agent)s with the token “%(token)s”")
        % {"agent": agent, "token": token.name},
        url,
    )


def _import_label(memory: Memory) -> OriginLabel:
    sources = [
        link.uri
        for link in getattr(memory, "dash_links", [])
        if link.uri and link.from_memory_id == memory.pk
    ]
    if sources:
        return OriginLabel(_("Imported from %(source)s") % {"source": sources[0]})
    return OriginLabel(_("Imported"))


def with_origins(memories: list[Memory]) -> list[Memory]:
    """Attach `dash_origin` (an OriginLabel) to each memory, and a readable `dash_text` and
    `dash_url` to each of its URI links (call after `with_links`)."""
    captured = [m.pk for m in memories if m.origin == Origin.CAPTURE]
    candidates = {}
    if captured:
        rows = Candidate.objects.filter(memory_id__in=captured).order_by("decided_at")
        candidates = {row.memory_id: row for row in rows}
    threads = _threads(candidates)
    token_ids = {m.created_by_token_id for m in memories if m.created_by_token_id}
    tokens = {t.pk: t for t in PersonalAccessToken.objects.filter(pk__in=token_ids)}
    for memory in memories:
        if memory.origin == Origin.CAPTURE:
            memory.dash_origin = _capture_label(candidates.get(memory.pk), threads)
        elif memory.origin == Origin.AGENT:
            memory.dash_origin = _agent_label(memory, tokens)
        elif memory.origin == Origin.IMPORT:
            memory.dash_origin = _import_label(memory)
        else:
            memory.dash_origin = OriginLabel(_("Written by you"))
        _name_uri_links(memory)
    return memories


def _name_uri_links(memory: Memory) -> None:
    """A link to a resource URI in words; where the memory came from (an import's source,
    a capture's conversation) is the origin's to say, so those links are not listed twice."""
    links = getattr(memory, "dash_links", None)
    if not links:
        return
    kept = []
    for link in links:
        provenance = (
            link.uri and link.from_memory_id == memory.pk and link.relation == "derived_from"
        )
        if provenance and memory.origin in (Origin.CAPTURE, Origin.IMPORT):
            continue
        if link.uri and CAPTURE_URI.match(link.uri):
            link.dash_text = _("a captured conversation")
            link.dash_url = memory.dash_origin.url if memory.origin == Origin.CAPTURE else ""
        elif link.uri:
            link.dash_text, link.dash_url = link.uri, ""
        kept.append(link)
    memory.dash_links = kept
