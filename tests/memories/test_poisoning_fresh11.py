"""The make-up of the blind `fresh11` poisoning split (tests/fixtures/poisoning/fresh11_*.py).

fresh11 is measured once, blind; like every split, these tests check what the split is made
of, never how the screen scores on it."""

from __future__ import annotations

import re

from tests.fixtures.poisoning.fresh11_carriers import KINDS
from tests.fixtures.poisoning.fresh11_goals_en import GOALS_EN
from tests.fixtures.poisoning.fresh11_goals_zh import GOALS_ZH
from tests.fixtures.poisoning.fresh11_slots import SLOTS
from tests.fixtures.poisoning.generate import SEEDS, attacks, ordinary

CJK = re.compile(r"[\u4e00-\u9fff]")
# Look-alike, invisible, full-width, mathematical and tag characters and direction overrides.
RESPELT = re.compile(
    "[\u00ad\u0370-\u03ff\u0400-\u04ff\u200b-\u200f\u202a-\u202e\u2060\ufeff"
    "\uff21-\uff3a\uff41-\uff5a\U0001d400-\U0001d7ff\U000e0000-\U000e007f]"
)
# breadth is drawn larger for training (bench/poisoning_train.py): compare against all of it.
SIZES = {"breadth": (1200, 1600)}


def _mixed(case: dict) -> bool:
    return bool(CJK.search(case["text"]) and re.search(r"\b[A-Za-z]{4,}\b", case["text"]))


def test_fresh11_is_full_about_half_english_and_reproducible():
    bad, good = attacks("fresh11"), ordinary("fresh11")
    for cases in (bad, good):
        assert len({case["text"] for case in cases}) == len(cases) == 340
        assert {case["split"] for case in cases} == {"fresh11"}
        english = sum(case["lang"] == "en" for case in cases) / len(cases)
        assert 0.50 <= english <= 0.60, english
        assert all(bool(CJK.search(case["text"])) == (case["lang"] == "zh") for case in cases)
    assert attacks("fresh11") == bad and ordinary("fresh11") == good


def test_fresh11_has_its_own_seed():
    assert list(SEEDS.values()).count(SEEDS["fresh11"]) == 1


def test_about_one_fresh11_attack_in_ten_mixes_chinese_and_english():
    bad = attacks("fresh11")
    mixed = [case for case in bad if case["family"].endswith("/bilingual")]
    assert 0.07 <= len(mixed) / 340 <= 0.13
    assert all(_mixed(case) for case in mixed)
    chinese = [c for c in bad if c["lang"] == "zh" and not c["family"].endswith("/bilingual")]
    assert 0.30 <= len(chinese) / 340 <= 0.40


def test_fresh11_attackers_want_many_things_in_both_languages():
    assert len(GOALS_EN) >= 35 and len(GOALS_ZH) >= 35
    assert sum(len(phrasings) for phrasings in GOALS_EN.values()) >= 85
    assert all(CJK.search(p) for phrasings in GOALS_ZH.values() for p in phrasings)
    # English goals are plain ASCII with no double quote, so every mask can carry them.
    assert all(p.isascii() and '"' not in p for phrasings in GOALS_EN.values() for p in phrasings)
    assert not [p for phrasings in GOALS_ZH.values() for p in phrasings if '"' in p]


def test_no_fresh11_text_is_on_both_sides_or_in_any_other_split():
    bad = {case["text"] for case in attacks("fresh11")}
    good = {case["text"] for case in ordinary("fresh11")}
    assert not bad & good
    for split in sorted(set(SEEDS) - {"fresh11"}):
        bad_size, good_size = SIZES.get(split, (340, 340))
        older = {case["text"] for case in attacks(split, bad_size) + ordinary(split, good_size)}
        assert not (bad | good) & older, split


def test_no_fresh11_ordinary_memory_names_an_attackers_place():
    places = [value for values in SLOTS.values() for value in values]
    for case in ordinary("fresh11"):
        assert not [place for place in places if place in case["text"]], case["text"]


def test_every_plain_fresh11_attack_names_its_goal_in_readable_words():
    # Plain attacks hide nothing: no look-alike, invisible or full-width letter is in them.
    for case in attacks("fresh11"):
        if case["family"].endswith("/none"):
            assert not RESPELT.search(case["text"]), case["text"]


def test_fresh11_attacks_come_in_many_carriers_and_masks():
    families = [case["family"].split("/") for case in attacks("fresh11")]
    carriers = {carrier for carrier, _ in families}
    masks = {mask for _, mask in families}
    assert len(carriers) >= 25 and len(masks) >= 15
    assert carriers <= set(KINDS)
    assert sum(mask == "none" for _, mask in families) < 0.5 * len(families)


def test_fresh11_ordinary_memories_use_the_attacks_carriers_and_many_topics():
    bad_starts = {case["text"][:12] for case in attacks("fresh11")}
    good = ordinary("fresh11")
    assert len({case["family"] for case in good}) >= 15
    assert sum(case["text"][:12] in bad_starts for case in good) >= 40
    assert 0.05 <= sum(_mixed(case) for case in good) / 340
    chinese = sum(case["lang"] == "zh" for case in good) / 340
    assert 0.40 <= chinese <= 0.50, chinese
