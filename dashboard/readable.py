"""Ids in words: what the owner reads instead of a memory's UUID.

Events' reasons and the services' refusals name memories by id ("contradicts confirmed
memory 3f2c…", "Memory 9a1e… now holds the key"). The dashboard shows each as a short
excerpt of that memory, linked to its card, or "a deleted memory" when it is gone (or
not the owner's), and never the raw id. One query per page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext as _

from foundation.messages import localize
from memories.models import Memory

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
EXCERPT_CHARS = 60


@dataclass(frozen=True)
class Part:
    """A piece of text, or a memory named by its excerpt (with a link to its card)."""

    text: str
    url: str = ""
    gone: bool = False


def excerpt(content: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(content.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def memory_excerpts(user, ids) -> dict[str, str]:
    """The owner's memories among `ids`, as {id: excerpt}; other ids are simply absent."""
    wanted = {str(pk).lower() for pk in ids if pk}
    if not wanted:
        return {}
    rows = Memory.objects.filter(owner=user, pk__in=wanted).values_list("pk", "content")
    return {str(pk): excerpt(content) for pk, content in rows}


def memory_part(pk, known: dict[str, str]) -> Part:
    key = str(pk).lower()
    if key in known:
        return Part(known[key], reverse("dashboard:card", args=[key]))
    return Part(_("a deleted memory"), gone=True)


def parts(text: str, known: dict[str, str]) -> list[Part]:
    """`text` with every UUID in it replaced by the memory it names."""
    found, at = [], 0
    for match in UUID.finditer(text or ""):
        if match.start() > at:
            found.append(Part(text[at : match.start()]))
        named = memory_part(match.group(0), known)
        found.append(Part(f"“{named.text}”" if not named.gone else named.text, named.url))
        at = match.end()
    if at < len(text or ""):
        found.append(Part(text[at:]))
    return found


def readable_message(user, text: str) -> str:
    """A refusal's message as plain text, each memory id in it replaced by an excerpt."""
    text = localize(text or "")  # the owner's language first, then ids in words
    known = memory_excerpts(user, UUID.findall(text))
    return "".join(part.text for part in parts(text, known))


def with_subjects(user, events: list) -> list:
    """Attach to each event the memory it is about (`dash_subject`, a Part) and its reason
    with ids in words (`dash_reason`, a list of Parts)."""
    ids = {str(event.memory_id) for event in events}
    for event in events:
        ids.update(UUID.findall(event.reason or ""))
    known = memory_excerpts(user, ids)
    for event in events:
        event.dash_subject = memory_part(event.memory_id, known)
        event.dash_reason = parts(localize(event.reason or ""), known)
    return events
