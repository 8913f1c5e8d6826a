"""The dashboard works under its own Content-Security-Policy: htmx swaps, out-of-band
counters and the debounced search run with no inline script and no eval, and the browser
reports no violation."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from foundation.actors import Actor
from memories.models import Memory
from tests.factories import MemoryFactory

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def strict_page(chromium, live_server):
    context = chromium.new_context(base_url=live_server.url, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            "Content Security Policy" in message.text and violations.append(message.text)
        ),
    )
    page.violations = violations
    yield page
    context.close()


def test_htmx_actions_and_search_work_under_the_policy(strict_page, owner, make_token):
    page = strict_page
    agent = Actor.agent(make_token("claude-code")[0])
    inferred = MemoryFactory(actor=agent, content="The release train leaves every second Tuesday.")
    MemoryFactory(actor=Actor.owner(owner), content="Always answer in British English.")

    sign_in(page)
    page.goto("/review/")
    expect(page.locator("#count-review")).to_have_text("1")
    page.locator(f"#m-{inferred.pk}").get_by_role("button", name="Confirm").click()
    expect(page.locator("#count-review")).to_have_text("0")  # the out-of-band counter swap
    assert Memory.objects.get(pk=inferred.pk).trust == "confirmed"

    page.goto("/search/")
    page.get_by_role("searchbox").fill("release train")
    expect(page.locator("#results")).to_contain_text("second Tuesday")  # live, debounced htmx

    assert page.violations == []
