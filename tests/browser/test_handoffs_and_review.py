"""In a real browser: expire a handoff and merge a near-duplicate, each swapped in place by
htmx with the tab counts updated out of band."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from handoff.models import HandoffCapsule
from memories.compaction import propose_near_duplicates
from memories.models import Memory, ReviewProposal
from tests.factories import HandoffCapsuleFactory, MemoryFactory
from tests.workers.compaction_helpers import before_the_judge

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_expire_a_handoff_in_place(page, owner, make_token, shoot):
    agent = Actor.agent(make_token("claude-code")[0])
    capsule = HandoffCapsuleFactory(actor=agent, task_id="issue-7 仪表盘", summary="Tab done; 还差浏览器测试。",
                                    next_steps=["Write the browser test"])  # fmt: skip
    HandoffCapsuleFactory(actor=agent, task_id="issue-8", summary="Settings page next.")
    sign_in(page)
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Handoffs").click()
    assert page.locator("#count-handoffs").inner_text() == "2"
    shoot(page, "30-handoffs")
    row = page.locator(f"#h-{capsule.pk}")
    page.once("dialog", lambda dialog: dialog.accept())  # the hx-confirm question
    row.get_by_role("button", name="Expire now").click()
    page.wait_for_function("document.querySelector('#count-handoffs').textContent === '1'")
    page.locator(f"#h-{capsule.pk} .notice").wait_for()
    assert page.locator(f"#h-{capsule.pk}").get_by_role("button", name="Expire now").count() == 0
    assert "/handoffs/" in page.url  # swapped in place, no navigation
    assert HandoffCapsule.objects.get(pk=capsule.pk).is_expired
    shoot(page, "31-handoff-expired")


def test_merge_a_near_duplicate_in_place(page, owner, make_token, shoot):
    agent = Actor.agent(make_token("claude-code")[0])
    project = {"scope_type": "project", "scope_key": "github:ada/api"}
    # A store written before writes asked the relation judge (which now answers the second
    # write with the first): compaction finds the pair.
    with before_the_judge():
        kept = MemoryFactory(
            actor=agent, content="Use pnpm for this repo", trust="inferred", **project
        )
        other = MemoryFactory(
            actor=agent, content="use pnpm in this repo please", trust="inferred", **project
        )
    propose_near_duplicates(deadline=Deadline.after(60))
    proposal = ReviewProposal.objects.get()
    sign_in(page)
    page.goto("/review/")
    # two inferences to confirm and the open proposal about them
    assert page.locator("#count-review").inner_text() == "3"
    shoot(page, "32-review-proposal")
    block = page.locator(f"#p-{proposal.pk}")
    block.locator(f"#m-{kept.pk}").locator("xpath=..").get_by_role(
        "button", name="Keep this one, merge the other into it"
    ).click()
    page.get_by_text("Merged: the duplicate is superseded by the memory you kept.").wait_for()
    page.wait_for_function("document.querySelector('#count-review').textContent === '1'")
    assert Memory.objects.get(pk=kept.pk).status == "active"
    assert Memory.objects.get(pk=other.pk).status == "superseded"
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "accepted"
    shoot(page, "33-proposal-merged")
