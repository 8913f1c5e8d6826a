"""The Inbox in real Chromium: a captured candidate is approved with one click, the card
and the tab count update in place, and the memory exists."""

from __future__ import annotations

import pytest

from capture.models import Candidate
from memories.models import Memory

from ..capture.inbox_helpers import pending, propose
from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_approve_a_captured_candidate_as_shared_in_the_inbox(page, owner, shoot):
    propose(owner, "请记住：周报每周一上午发。", agent="codex")
    propose(owner, "I prefer tabs over spaces.", external_id="other")
    candidate = next(c for c in pending(owner) if c.content == "周报每周一上午发")
    sign_in(page)
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Inbox").click()
    page.wait_for_url("**/inbox/")
    assert page.locator("#count-inbox").inner_text() == "2"
    card = page.locator(f"#c-{candidate.pk}")
    assert "请记住：周报每周一上午发。" in card.locator(".evidence").inner_text()
    shoot(page, "30-inbox")
    card.get_by_label("Share with agents").check()
    card.get_by_role("button", name="Approve", exact=True).click()
    page.wait_for_function("document.querySelector('#count-inbox').textContent === '1'")
    page.locator(f"#c-{candidate.pk}.status-approved").wait_for()
    shoot(page, "31-inbox-approved")
    decided = Candidate.objects.get(pk=candidate.pk)
    memory = Memory.objects.get(pk=decided.memory_id)
    assert (decided.status, memory.content, memory.visibility, memory.trust) == (
        "approved", "周报每周一上午发", "shared", "confirmed",
    )  # fmt: skip
