"""Tokens tab presets, the ready-to-paste set-up shown with a new token, and the empty
states that point a new owner at it."""

from __future__ import annotations

import html
import json
import os
import re
import sys
import tomllib

import pytest
from django.conf import settings

from accounts.models import PersonalAccessToken
from accounts.tokens import TOKEN_PRESETS
from continuity_client import clients

pytestmark = pytest.mark.django_db

FORM = {
    "name": "Laptop",
    "agent_name": "claude-code",
    "scopes": ["memories:read"],
    "projects": "",
    "expires_in_days": "30",
}
SERVER = "http://testserver"


def _secret(page: str) -> str:
    return page.split('id="new-secret" class="mono" value="')[1].split('"')[0]


def textareas(page: str) -> dict[str, str]:
    """{id: the text a copy button copies} of every set-up box on the page."""
    found = re.findall(r'<textarea id="(setup-[\w-]+)"[^>]*>(.*?)</textarea>', page, re.S)
    return {key: html.unescape(text) for key, text in found}


def connection(secret: str) -> clients.Connection:
    """The stdio entry runs this server's interpreter and manage.py, with its data folder."""
    data_dir = os.environ.get("CONTINUITY_DATA_DIR")
    return clients.Connection(
        SERVER, secret, python=sys.executable, manage=str(settings.BASE_DIR / "manage.py"),
        stdio_env={"CONTINUITY_DATA_DIR": data_dir} if data_dir else {},
    )  # fmt: skip


@pytest.mark.parametrize("preset", list(TOKEN_PRESETS))
def test_a_preset_sets_the_scopes_whatever_is_ticked(browser, preset):
    response = browser.post("/tokens/", {**FORM, "preset": preset})

    assert response.status_code == 200
    token = PersonalAccessToken.objects.get()
    assert token.scopes == sorted(TOKEN_PRESETS[preset].scopes)


def test_the_hooks_presets_give_the_scopes_hooks_and_mcp_need():
    for key in ("claude-code", "codex"):
        assert set(TOKEN_PRESETS[key].scopes) == {
            "memories:read",
            "memories:write",
            "capture:write",
        }
    assert set(TOKEN_PRESETS["mcp"].scopes) == {"memories:read", "memories:write"}


def test_without_a_preset_the_ticked_scopes_are_used(browser):
    browser.post("/tokens/", {**FORM, "preset": ""})

    assert PersonalAccessToken.objects.get().scopes == ["memories:read"]


def test_an_unknown_preset_is_refused_and_creates_nothing(browser):
    response = browser.post("/tokens/", {**FORM, "preset": "root"})

    assert response.status_code == 400 and 'role="alert"' in response.content.decode()
    assert "preset must be one of" in response.content.decode()
    assert not PersonalAccessToken.objects.exists()


@pytest.mark.parametrize("htmx", [False, True])
def test_the_new_token_comes_with_each_clients_set_up_filled_in(browser, htmx):
    response = browser.post("/tokens/", {**FORM, "preset": "claude-code"}, htmx=htmx)

    page = response.content.decode()
    secret = _secret(page)
    boxes = textareas(page)
    for name in clients.CLIENTS:
        assert f'id="setup-{name}"' in page
        command = boxes[f"setup-{name}-command"]
        assert command == f"continuity setup {name} --url {SERVER} --token {secret}"
        for number, block in enumerate(clients.paste(name, connection(secret)), 1):
            assert boxes[f"setup-{name}-{number}"] == block.text
    assert '<details id="setup-claude" open>' in page
    assert ("<html" in page) is not htmx


@pytest.mark.parametrize("name", list(clients.CLIENTS))
def test_each_pasted_entry_parses_to_the_file_setup_writes(browser, name):
    page = browser.post("/tokens/", {**FORM, "preset": "mcp"}).content.decode()
    secret = _secret(page)
    boxes = textareas(page)

    client = clients.CLIENTS[name]
    [text] = [
        boxes[f"setup-{name}-{number}"]
        for number, block in enumerate(clients.paste(name, connection(secret)), 1)
        if block.language == client.format
    ]
    parsed = tomllib.loads(text) if client.format == "toml" else json.loads(text)
    assert parsed == clients.document(name, connection(secret))
    entry = parsed[client.servers_key]["continuity"]
    if name == "claude-desktop":
        assert entry["env"]["CONTINUITY_TOKEN"] == secret
    else:
        assert clients.entry_target(entry) == f"{SERVER}/mcp"
    assert (secret in text) is client.token_in_file


def test_an_mcp_only_token_gets_mcp_only_set_up_commands(browser):
    page = browser.post("/tokens/", {**FORM, "preset": "mcp"}).content.decode()

    boxes = textareas(page)
    assert boxes["setup-claude-command"].endswith("--mcp-only")
    assert boxes["setup-codex-command"].endswith("--mcp-only")
    assert not boxes["setup-cursor-command"].endswith("--mcp-only")
    assert '<details id="setup-claude" open>' not in page


def test_the_set_up_is_shown_only_in_the_answer_that_created_the_token(browser):
    secret = _secret(browser.post("/tokens/", {**FORM, "preset": "codex"}).content.decode())

    later = browser.get("/tokens/").content.decode()

    assert secret not in later and 'id="setup"' not in later


@pytest.mark.parametrize("path", ["/", "/recent/", "/archive/", "/projects/"])
def test_an_empty_memory_tab_says_how_to_connect_a_first_agent(browser, path):
    page = browser.get(path).content.decode()

    assert (
        'To connect a first agent, create a token in the <a href="/tokens/">Tokens tab</a>' in page
    )


def test_a_tab_with_memories_does_not_show_the_first_agent_hint(browser, world):
    assert "To connect a first agent" not in browser.get("/").content.decode()


def test_the_empty_tokens_tab_says_how_to_connect_a_first_agent(browser, make_token):
    assert "No tokens yet. To connect a first agent" in browser.get("/tokens/").content.decode()

    make_token("codex")

    assert "No tokens yet" not in browser.get("/tokens/").content.decode()


def test_the_first_agent_hint_is_translated(browser):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    page = browser.get("/").content.decode()

    assert "To connect a first agent" not in page and 'href="/tokens/"' in page
    assert "令牌" in page
