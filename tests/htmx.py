"""Helpers for htmx answers: the `counts-changed` event and the counts the tab bar then
re-fetches from the one counts endpoint."""

from __future__ import annotations

import json
import re


def announces_counts_changed(response) -> bool:
    """The answer tells the page (HX-Trigger) that the tab counts changed."""
    header = response.headers.get("HX-Trigger")
    return bool(header) and "counts-changed" in json.loads(header)


def tab_counts(client) -> dict[str, int]:
    """The counts the tab bar re-fetches after `counts-changed`, as it swaps them in."""
    response = client.get("/counts/", headers={"HX-Request": "true"})
    assert response.status_code == 200, response.status_code
    html = response.content.decode()
    assert "<html" not in html
    pattern = r'<span class="count" id="count-([a-z]+)" hx-swap-oob="true">(\d+)</span>'
    return {name: int(value) for name, value in re.findall(pattern, html)}


def counts_after(client, response) -> dict[str, int]:
    """The tab counts as the page shows them after an htmx action's answer."""
    assert announces_counts_changed(response), dict(response.headers)
    return tab_counts(client)
