"""The Handoffs tab: list with filters and paging, one capsule, expire now (htmx and plain
post, CSRF enforced), the active count re-fetched after `counts-changed`, and nobody
else's capsules."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.actors import Actor
from handoff.models import HandoffCapsule
from handoff.services import handoff_create, handoff_expire, handoff_resume
from tests.htmx import counts_after

from .conftest import DashboardClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def capsules(owner, agent_actor, other_agent_actor):
    """One open, one resumed by codex, one expired, all written by claude-code."""
    open_one = handoff_create(
        actor=agent_actor, task_id="issue-7 仪表盘", summary="Handoffs tab half done; 还差过期按钮。",
        decisions=["Use keyset pages"], next_steps=["Add the expire action", "写测试"],
        artifacts=["handoff/views.py"], blockers=["none yet"],
    )  # fmt: skip
    resumed = handoff_create(actor=agent_actor, task_id="issue-8", summary="Retention page next.")
    handoff_resume(actor=other_agent_actor, task_id="issue-8")
    expired = handoff_create(actor=agent_actor, task_id="issue-5", summary="Old capsule.")
    handoff_expire(actor=Actor.owner(owner), capsule_id=expired.pk)
    return {
        "open": open_one,
        "resumed": HandoffCapsule.objects.get(pk=resumed.pk),
        "expired": expired,
    }


def test_the_tab_lists_every_capsule_with_its_agent_state_and_resume(browser, capsules):
    html = browser.get("/handoffs/").content.decode()
    for capsule in capsules.values():
        assert f'id="h-{capsule.pk}"' in html
    assert "issue-7 仪表盘" in html and "from claude-code" in html
    assert "resumed by codex" in html
    assert '<span class="count" id="count-handoffs">2</span>' in html


@pytest.mark.parametrize(
    "state, expected",
    [
        ("", {"open", "resumed", "expired"}),
        ("active", {"open", "resumed"}),
        ("open", {"open"}),
        ("resumed", {"resumed"}),
        ("expired", {"expired"}),
    ],
)
def test_the_state_filter_narrows_the_list(browser, capsules, state, expected):
    html = browser.get("/handoffs/", {"state": state}).content.decode()
    assert {name for name, c in capsules.items() if f'id="h-{c.pk}"' in html} == expected


def test_an_unknown_state_is_refused_not_ignored(browser, capsules):
    response = browser.get("/handoffs/", {"state": "bogus"})
    html = response.content.decode()
    assert response.status_code == 400 and "active, open, resumed, expired" in html
    assert not any(f'id="h-{c.pk}"' in html for c in capsules.values())


def test_the_task_filter_matches_the_exact_task_id_including_chinese(browser, capsules):
    html = browser.get("/handoffs/", {"task": "issue-7 仪表盘"}).content.decode()
    assert (
        f'id="h-{capsules["open"].pk}"' in html and f'id="h-{capsules["resumed"].pk}"' not in html
    )


def test_the_list_pages_by_keyset_and_htmx_gets_only_the_next_page(browser, agent_actor):
    start = timezone.now() - timedelta(hours=1)
    for n in range(30):
        capsule = handoff_create(actor=agent_actor, task_id=f"task-{n:02d}", summary=f"step {n}")
        HandoffCapsule.objects.filter(pk=capsule.pk).update(created_at=start + timedelta(minutes=n))
    first = browser.get("/handoffs/").content.decode()
    assert "task-29" in first and "task-05" in first and "task-04" not in first
    cursor = first.split("cursor=")[1].split("&")[0].split('"')[0]
    page = browser.hx_get("/handoffs/", {"cursor": cursor, "fragment": "page"}).content.decode()
    assert "<html" not in page and "task-04" in page and "task-00" in page and "task-05" not in page


def test_one_capsule_shows_summary_decisions_next_steps_artifacts_and_blockers(browser, capsules):
    html = browser.get(f"/handoffs/{capsules['open'].pk}/").content.decode()
    for text in (
        "还差过期按钮",
        "Use keyset pages",
        "写测试",
        "handoff/views.py",
        "none yet",
        "claude-code",
    ):
        assert text in html


def test_expire_over_htmx_swaps_the_row_and_announces_the_counts_changed(browser, capsules):
    capsule = capsules["open"]
    response = browser.post(f"/handoffs/{capsule.pk}/expire/", htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'id="h-{capsule.pk}"' in html and "state-expired" in html and "Expire now" not in html
    assert counts_after(browser, response)["handoffs"] == 1
    assert HandoffCapsule.objects.get(pk=capsule.pk).is_expired


def test_expire_from_the_detail_page_over_htmx_answers_the_detail_panel(browser, capsules):
    capsule = capsules["resumed"]
    html = browser.post(
        f"/handoffs/{capsule.pk}/expire/", {"shape": "detail"}, htmx=True
    ).content.decode()
    assert f'id="capsule-{capsule.pk}"' in html and "Retention page next." in html
    assert HandoffCapsule.objects.get(pk=capsule.pk).is_expired


def test_expire_without_javascript_redirects_back_and_resume_then_finds_nothing(
    browser, capsules, agent_actor
):
    capsule = capsules["open"]
    response = browser.post(f"/handoffs/{capsule.pk}/expire/", {"next": "/handoffs/?state=active"})
    assert response.status_code == 302 and response["Location"] == "/handoffs/?state=active"
    assert handoff_resume(actor=agent_actor, task_id="issue-7 仪表盘") is None


def test_expiring_twice_keeps_the_first_expiry_time(browser, capsules):
    capsule = capsules["expired"]
    before = HandoffCapsule.objects.get(pk=capsule.pk).expires_at
    browser.post(f"/handoffs/{capsule.pk}/expire/", htmx=True)
    assert HandoffCapsule.objects.get(pk=capsule.pk).expires_at == before


def test_expire_without_the_csrf_token_is_refused_and_changes_nothing(owner, capsules):
    client = DashboardClient(owner)
    response = client.post(
        f"/handoffs/{capsules['open'].pk}/expire/", headers={"X-CSRFToken": "wrong"}
    )
    assert response.status_code == 403
    assert not HandoffCapsule.objects.get(pk=capsules["open"].pk).is_expired


def test_another_owners_capsule_is_404_to_view_and_to_expire(other_owner, capsules):
    stranger = DashboardClient(other_owner)
    capsule = capsules["open"]
    assert stranger.get(f"/handoffs/{capsule.pk}/").status_code == 404
    assert stranger.post(f"/handoffs/{capsule.pk}/expire/", htmx=True).status_code == 404
    assert not HandoffCapsule.objects.get(pk=capsule.pk).is_expired
    assert f'id="h-{capsule.pk}"' not in stranger.get("/handoffs/").content.decode()


def test_signed_out_visitors_are_sent_to_sign_in(anonymous, capsules):
    response = anonymous.get("/handoffs/")
    assert response.status_code == 302 and "/signin/" in response["Location"]
    response = anonymous.post(f"/handoffs/{capsules['open'].pk}/expire/")
    assert (
        response.status_code == 302
        and not HandoffCapsule.objects.get(pk=capsules["open"].pk).is_expired
    )


def test_expire_is_post_only(browser, capsules):
    assert browser.get(f"/handoffs/{capsules['open'].pk}/expire/").status_code == 405


def test_the_tab_and_the_capsule_read_in_chinese(browser, capsules):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/handoffs/"})
    html = browser.get("/handoffs/").content.decode()
    assert "交接" in html and "已接手" in html and "已过期" in html and "立即过期" in html
    html = browser.get(f"/handoffs/{capsules['open'].pk}/").content.decode()
    assert "下一步" in html and "阻碍" in html and "进行中" in html
