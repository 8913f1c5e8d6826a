"""Real Chromium (chromium.py says where it is found) driven by Playwright against
live_server.

Playwright is imported inside the fixtures, so a run without them (-m "not browser", or no
Chromium: tests/conftest.py deselects them) only collects these modules and never starts a
browser. A sync Playwright session leaves an event loop behind that breaks later asyncio
tests, so tests/conftest.py runs them last, and CI runs them as their own pytest process
(`python3 run.py test -m browser`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.chromium import chromium_path, why_missing

# Without the networking flags Chromium keeps calling home on a closed network.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]  # fmt: skip
SCREENSHOTS = Path(__file__).resolve().parents[2] / ".artifacts" / "screenshots"
PASSWORD = "correct horse battery"


@pytest.fixture(scope="session")
def chromium():
    executable = chromium_path()
    if executable is None:  # only when a test asks for it directly: collection deselects
        pytest.fail(f"browser tests cannot run: {why_missing()}", pytrace=False)
    # live_server's ORM calls happen in the test thread while Playwright's loop runs there.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(chromium, live_server):
    # bypass_csp: the tests' own `wait_for_function` strings are evaluated in the page,
    # which the dashboard's policy (no eval) forbids; test_content_security_policy.py
    # drives the dashboard under the real policy.
    context = chromium.new_context(
        base_url=live_server.url,
        locale="en-US",
        viewport={"width": 1280, "height": 900},
        bypass_csp=True,
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def shoot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


def sign_in(page, username: str = "ada", password: str = PASSWORD) -> None:
    page.goto("/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")
