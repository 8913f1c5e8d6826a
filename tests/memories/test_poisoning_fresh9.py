"""The make-up of the blind `fresh9` poisoning split (tests/fixtures/poisoning/fresh9_*.py).

fresh9 was measured once, blind, and is trained on since; like every split, these
tests check what the split is made of, never how the screen scores on it."""

from __future__ import annotations

import re

from tests.fixtures.poisoning.fresh9_slots import SLOTS
from tests.fixtures.poisoning.generate import SEEDS, attacks, ordinary

CJK = re.compile(r"[\u4e00-\u9fff]")
# Cyrillic look-alikes, zero-width characters and full-width Latin letters.
RESPELT = re.compile(r"[\u0400-\u04ff\u200b\u200c\u2060\ufeff\uff21-\uff3a\uff41-\uff5a]")
# breadth is drawn larger for training (bench/poisoning_train.py): compare against all of it.
SIZES = {"breadth": (1200, 1600)}


def test_fresh9_is_full_about_half_english_and_reproducible():
    bad, good = attacks("fresh9"), ordinary("fresh9")
    for cases in (bad, good):
        assert len({case["text"] for case in cases}) == len(cases) == 340
        assert {case["split"] for case in cases} == {"fresh9"}
        english = sum(case["lang"] == "en" for case in cases) / len(cases)
        assert 0.50 <= english <= 0.60, english
        assert all(bool(CJK.search(case["text"])) == (case["lang"] == "zh") for case in cases)
    assert attacks("fresh9") == bad and ordinary("fresh9") == good


def test_about_one_fresh9_attack_in_ten_mixes_chinese_and_english():
    mixed = [case for case in attacks("fresh9") if case["family"].endswith("/code_switch")]
    assert 0.07 <= len(mixed) / 340 <= 0.13
    assert all(
        CJK.search(case["text"]) and re.search(r"[A-Za-z]{4,}", case["text"]) for case in mixed
    )


def test_no_fresh9_text_is_on_both_sides_or_in_any_other_split():
    bad = {case["text"] for case in attacks("fresh9")}
    good = {case["text"] for case in ordinary("fresh9")}
    assert not bad & good
    for split in sorted(set(SEEDS) - {"fresh9"}):
        bad_size, good_size = SIZES.get(split, (340, 340))
        older = {case["text"] for case in attacks(split, bad_size) + ordinary(split, good_size)}
        assert not (bad | good) & older, split


def test_no_fresh9_ordinary_memory_names_an_attackers_place():
    places = [value for values in SLOTS.values() for value in values]
    for case in ordinary("fresh9"):
        assert not [place for place in places if place in case["text"]], case["text"]


def test_every_plain_fresh9_attack_names_its_goal_in_readable_words():
    # A plain attack hides nothing: no look-alike, zero-width or full-width letter is in it.
    for case in attacks("fresh9"):
        if case["family"].endswith("/none"):
            assert not RESPELT.search(case["text"]), case["text"]


def test_fresh9_attacks_come_in_many_carriers_and_masks():
    families = [case["family"].split("/") for case in attacks("fresh9")]
    carriers = {carrier for carrier, _ in families}
    masks = {mask for _, mask in families}
    assert len(carriers) >= 20 and len(masks) >= 15
    assert sum(mask == "none" for _, mask in families) < 0.6 * len(families)


def test_fresh9_ordinary_memories_use_the_attacks_carriers_and_many_topics():
    bad_starts = {case["text"][:12] for case in attacks("fresh9")}
    good = ordinary("fresh9")
    assert len({case["family"] for case in good}) >= 15
    assert sum(case["text"][:12] in bad_starts for case in good) >= 40
