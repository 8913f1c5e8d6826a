"""The memory card says what the owner needs to judge it (whether agents receive it, its
key, tags, and where it came from, as words with a link), and keeps its secondary actions
behind one expander so a page of cards stays short."""

from __future__ import annotations

import re

import pytest

from capture.models import Candidate, CaptureThread
from capture.services.review import candidate_approve
from foundation.actors import Actor
from memories.models import Memory

from .conftest import imported, remember

pytestmark = pytest.mark.django_db


def _card(browser, memory) -> str:
    response = browser.hx_get(f"/m/{memory.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _approved(owner) -> tuple[Memory, Candidate]:
    thread = CaptureThread.objects.create(
        owner=owner, source="claude_code", external_id="s-1", agent_name="claude-code",
        workspace="/home/ada/api",
    )  # fmt: skip
    candidate = Candidate.objects.create(
        owner=owner, content="Use pnpm, never npm, in the web app.", fingerprint="f" * 64,
        kind="preference", rule="prefer", confidence=0.8, agents=["claude-code"],
        evidence=[{"thread_id": thread.pk, "event_id": 38, "agent": "claude-code",
                   "sentence": "we use pnpm", "fingerprint": "e" * 64, "at": ""}],
    )  # fmt: skip
    candidate_approve(actor=Actor.owner(owner), candidate_id=candidate.pk)
    candidate.refresh_from_db()
    return Memory.objects.get(pk=candidate.memory_id), candidate


def test_a_shared_card_says_agents_receive_it_and_a_private_one_says_only_you(browser, owner):
    me = Actor.owner(owner)
    shared = remember(me, "Deploys happen on Tuesdays.", kind="fact")
    private = remember(me, "My doctor is Dr. Ng.", kind="fact", visibility="private")
    assert "shared: agents receive it" in _card(browser, shared)
    html = _card(browser, private)
    assert "private: only you" in html and "agents receive it" not in html


def test_a_card_shows_its_key_and_tags(browser, owner):
    memory = remember(Actor.owner(owner), "The editor is Helix.", key="editor", tags=["tools"])
    html = _card(browser, memory)
    assert "<code>editor</code>" in html and "#tools" in html


def test_an_approved_capture_links_to_its_candidate_never_to_a_raw_uri(browser, owner):
    memory, candidate = _approved(owner)
    html = _card(browser, memory)
    assert "continuity:capture" not in html
    assert f'href="/inbox/c/{candidate.pk}/"' in html
    assert "Approved from a conversation with claude-code (/home/ada/api)" in html
    assert 'class="links"' not in html  # its derived_from links: the origin says it once


def test_an_agents_memory_names_the_agent_and_links_to_its_token(browser, agent_actor):
    memory = remember(agent_actor, "The api deploys with Helm.", kind="fact")
    html = _card(browser, memory)
    token = agent_actor.token
    assert f"Written by claude-code with the token “{token.name}”" in html
    assert f'href="/tokens/#token-{token.pk}"' in html


def test_an_imported_memory_says_where_it_was_imported_from(browser, owner):
    memory = imported(owner, 1)[0]
    assert "Imported from probe:0" in _card(browser, memory)


def test_the_owners_own_memory_says_written_by_you(browser, owner):
    assert "Written by you" in _card(browser, remember(Actor.owner(owner), "Tabs are 4."))


def test_secondary_actions_sit_inside_the_expander(browser, world):
    html = _card(browser, world.editor)
    visible, rest = html.split('<details class="more-actions">', 1)
    inside = rest.split("</details>", 1)[0]
    assert "/archive/" in visible
    for action in ("/lock/", "/correct/", "/history/", "/delete/"):
        assert action in inside and action not in visible, action


def test_a_page_of_cards_shows_at_most_two_buttons_per_card_outside_the_expander(browser, owner):
    imported(owner, 25)
    html = browser.get("/recent/").content.decode()
    cards = [part.split("</article>")[0] for part in html.split("<article")[1:]]
    assert len(cards) >= 20
    for card in cards:
        outside = re.sub(r"<details.*?</details>", "", card, flags=re.S)
        assert outside.count('<button type="submit"') <= 2
