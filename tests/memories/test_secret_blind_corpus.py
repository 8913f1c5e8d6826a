"""The make-up of the blind secrets split (tests/fixtures/secrets/blind.py).

Only the corpus is checked here, never the detection figures on it: bench/secrets_eval.py
reports those, and a test that held the rules to them would turn the split into one more to
tune on.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.fixtures.secrets import blind, blind_values

pytestmark = pytest.mark.once  # texts only: no database, no broker


def test_the_blind_split_is_large_bilingual_and_reproducible():
    secrets, lookalikes = blind.secret_cases(), blind.lookalike_cases()
    assert len(secrets) >= 300 and len(lookalikes) >= 300
    for cases in (secrets, lookalikes):
        languages = Counter(case.language for case in cases)
        assert set(languages) == {"en", "zh"}
        assert 0.25 <= languages["zh"] / len(cases) <= 0.40
        assert len({case.text for case in cases}) == len(cases)
    assert blind.secret_cases() == secrets and blind.lookalike_cases() == lookalikes


def test_every_blind_secret_is_written_in_its_text_and_look_alikes_carry_none():
    for case in blind.secret_cases():
        assert case.secret and case.secret in case.text, case
    assert all(case.secret == "" for case in blind.lookalike_cases())


def _digits(text: str) -> str:
    """Digits (full-width ones too) and a trailing X, separators dropped."""
    return "".join(str(int(c)) if c.isdigit() else "X" for c in text if c.isdigit() or c in "Xx")


def test_blind_numbers_pass_or_fail_their_checksums_as_labelled():
    for case in blind.secret_cases():
        if case.family == "card":
            assert blind_values.luhn_ok(_digits(case.secret)), case
        if case.family == "prc_id":
            number = _digits(case.secret)
            assert blind_values.prc_id_check(number[:17]) == number[17], case
    for case in blind.lookalike_cases():
        if case.family in ("card_bad_luhn", "prc_id_bad"):
            run = re.search(r"\d[\d .-]{11,22}[\dX]", case.text)
            assert run, case
            number = _digits(run.group())
            if case.family == "card_bad_luhn":
                assert not blind_values.luhn_ok(number), case
            else:
                assert blind_values.prc_id_check(number[:17]) != number[17], case


def test_blind_disguises_cover_the_ways_values_get_wrapped():
    disguises = {case.disguise for case in blind.secret_cases()}
    for disguise in ("urlencoded", "base64", "zero_width", "fullwidth", "json_escaped"):
        assert disguise in disguises
