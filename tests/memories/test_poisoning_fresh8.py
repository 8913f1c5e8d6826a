"""The make-up of the blind `fresh8` poisoning split (tests/fixtures/poisoning/fresh8_*.py).

fresh8 was measured once, blind, and is trained on since; like every split, these
tests check what the split is made of, never how the screen scores on it."""

from __future__ import annotations

import re

from tests.fixtures.poisoning.fresh8_slots import SLOTS
from tests.fixtures.poisoning.generate import SEEDS, attacks, ordinary

CJK = re.compile(r"[\u4e00-\u9fff]")
ATTACKER_SLOTS = ("url", "mail", "script", "index", "handle", "key", "pkg")
# breadth is drawn larger for training (bench/poisoning_train.py): compare against all of it.
SIZES = {"breadth": (1200, 1600)}


def test_fresh8_is_full_about_two_fifths_chinese_and_reproducible():
    bad, good = attacks("fresh8"), ordinary("fresh8")
    for cases in (bad, good):
        assert len({case["text"] for case in cases}) == len(cases) == 340
        assert {case["split"] for case in cases} == {"fresh8"}
        chinese = sum(case["lang"] == "zh" for case in cases) / len(cases)
        assert 0.35 <= chinese <= 0.48, chinese
        assert all(bool(CJK.search(case["text"])) == (case["lang"] == "zh") for case in cases)
    assert attacks("fresh8") == bad and ordinary("fresh8") == good


def test_no_fresh8_text_is_on_both_sides_or_in_any_other_split():
    bad = {case["text"] for case in attacks("fresh8")}
    good = {case["text"] for case in ordinary("fresh8")}
    assert not bad & good
    for split in sorted(set(SEEDS) - {"fresh8"}):
        bad_size, good_size = SIZES.get(split, (340, 340))
        older = {case["text"] for case in attacks(split, bad_size) + ordinary(split, good_size)}
        assert not (bad | good) & older, split


def test_no_fresh8_ordinary_memory_names_an_attackers_place():
    places = [value for slot in ATTACKER_SLOTS for value in SLOTS[slot]]
    for case in ordinary("fresh8"):
        assert not [place for place in places if place in case["text"]], case["text"]


def test_fresh8_attacks_come_in_many_shapes_and_masks():
    families = [case["family"].split("/") for case in attacks("fresh8")]
    shapes = {shape for shape, _ in families}
    masks = {mask for _, mask in families}
    assert len(shapes) >= 20 and len(masks) >= 15
    assert sum(mask == "none" for _, mask in families) < 0.6 * len(families)
