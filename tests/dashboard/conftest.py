"""Fixtures for the dashboard: a signed-in owner whose client enforces CSRF, and a small
memory store with one of everything the tabs show."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.test import Client

from foundation.actors import Actor
from memories.models import Memory
from memories.services import memory_archive, memory_lock, memory_remember
from portability.importers.common import RecordsBuilder


def contents(response) -> list[str]:
    """The statements of the cards on a page (not their link previews)."""
    html = response.content.decode()
    return [
        part.split(">", 1)[1].split("</p>", 1)[0] for part in html.split('<p class="content"')[1:]
    ]


def shown(response, text: str) -> bool:
    return any(text in content for content in contents(response))


class DashboardClient(Client):
    """A browser with JavaScript off (plain posts) unless `htmx=True` is passed; the CSRF
    check is never switched off, so every post carries the token like a page would."""

    def __init__(self, user=None):
        super().__init__(enforce_csrf_checks=True)
        self.get("/signin/")  # sets the CSRF cookie, as the sign-in page would
        if user is not None:
            self.force_login(user)

    def post(self, path, data=None, htmx=False, **extra):
        token = self.cookies.get("csrftoken")  # gone once a test clears the cookies
        headers = {"X-CSRFToken": token.value} if token else {}
        if htmx:
            headers["HX-Request"] = "true"
        return super().post(
            path, data or {}, headers={**headers, **extra.pop("headers", {})}, **extra
        )

    def hx_get(self, path, data=None, **extra):
        headers = {"HX-Request": "true", **extra.pop("headers", {})}
        return self.get(path, data or {}, headers=headers, **extra)


@pytest.fixture
def browser(owner) -> DashboardClient:
    return DashboardClient(owner)


@pytest.fixture
def anonymous() -> DashboardClient:
    return DashboardClient()


def imported(owner, count: int, text: str = "Imported observation number {n}.", **fields):
    """`count` memories brought in by an import (no relation judge runs between them, so
    none disputes another), with any record fields given (`created_at`, `trust`)."""
    builder = RecordsBuilder("probe")
    for n in range(count):
        builder.add_memory(
            foreign_id=str(n), provenance_uri=f"probe:{n}", origin_file="probe.jsonl",
            content=text.format(n=n), kind="fact", **fields,
        )  # fmt: skip
    builder.run(actor=Actor.owner(owner), merge=True, dry_run=False)
    return list(Memory.objects.filter(owner=owner, origin="import").order_by("created_at"))


def remember(actor, content, kind="preference", **fields) -> Memory:
    receipt = memory_remember(actor=actor, content=content, kind=kind, **fields)
    return Memory.objects.get(pk=receipt.id)


@pytest.fixture
def world(owner, agent_actor):
    """Core (locked + confirmed), a dispute, an inferred project note, an archived one."""
    me = Actor.owner(owner)
    locked = remember(me, "Always answer in British English.")
    memory_lock(actor=me, memory_id=locked.pk)
    editor = remember(me, "The preferred editor is Helix.", key="editor")
    disputed = remember(agent_actor, "The preferred editor is VS Code.", key="editor")
    inferred = remember(
        agent_actor, "The api service deploys with Kubernetes.", kind="fact",
        scope_type="project", scope_key="github:ada/api", trust="inferred",
    )  # fmt: skip
    gone = remember(me, "Old habit: tabs for indentation.")
    memory_archive(actor=me, memory_id=gone.pk)
    return SimpleNamespace(
        locked=Memory.objects.get(pk=locked.pk), editor=editor,
        disputed=Memory.objects.get(pk=disputed.pk), inferred=inferred,
        archived=Memory.objects.get(pk=gone.pk),
    )  # fmt: skip
