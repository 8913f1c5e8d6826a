"""A page of 25 cards stays short: secondary actions sit in the "More" expander, and the
rows view is shorter still. Measured in real Chromium at the suite's 1280 px viewport."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from memories.models import Memory
from portability.importers.common import RecordsBuilder

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CARDS = 25


def _list_height(page) -> int:
    return page.evaluate("document.querySelector('#results').getBoundingClientRect().height")


def test_25_cards_are_compact_and_25_rows_more_so(owner, page):
    builder = RecordsBuilder("height")  # an import: no relation judge links them to each other
    for n in range(CARDS):
        builder.add_memory(
            foreign_id=str(n), provenance_uri=f"notes:{n}", origin_file="notes.jsonl",
            content=f"Observation number {n} about the build.", kind="fact",
        )  # fmt: skip
    builder.run(actor=Actor.owner(owner), merge=True, dry_run=False)
    assert Memory.objects.filter(owner=owner).count() == CARDS
    sign_in(page)
    page.goto("/recent/")
    cards = _list_height(page)
    print(f"25 cards: {cards:.0f} px")
    # With six buttons, a links line and no origin per card this page measured 4,027 px;
    # the origin beside at most two buttons and "More" makes it about 2,960.
    assert cards < CARDS * 130, cards
    assert page.locator("#results details.more-actions:not([open])").count() == CARDS
    page.get_by_role("button", name="Rows").click()
    page.locator("#results article.row").first.wait_for()
    rows = _list_height(page)
    print(f"25 rows: {rows:.0f} px")
    assert rows < cards / 2, (rows, cards)
    page.reload()  # remembered on the server
    assert page.locator("#results article.row").count() == CARDS
