"""The make-up of the second blind secrets split (tests/fixtures/secrets/blind2.py).

Only the corpus is checked here, never the detection figures on it: bench/secrets_eval.py
reports those, and a test that held the rules to them would turn the split into one more to
tune on.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections import Counter
from urllib.parse import unquote

import pytest

from tests.fixtures.secrets import blind2
from tests.fixtures.secrets import blind2_values as values

pytestmark = pytest.mark.once  # texts only: no database, no broker


def test_the_second_blind_split_is_large_varied_bilingual_and_reproducible():
    secrets, lookalikes = blind2.secret_cases(), blind2.lookalike_cases()
    assert len(secrets) >= 400 and len(lookalikes) >= 400
    for cases in (secrets, lookalikes):
        assert len({case.family for case in cases}) >= 30
        languages = Counter(case.language for case in cases)
        assert set(languages) == {"en", "zh"}
        assert 0.30 <= languages["zh"] / len(cases) <= 0.40
        assert len({case.text for case in cases}) == len(cases)
    assert blind2.secret_cases() == secrets and blind2.lookalike_cases() == lookalikes


def test_chinese_cases_hold_chinese_text():
    for case in blind2.secret_cases() + blind2.lookalike_cases():
        has_han = re.search(r"[\u4e00-\u9fff]", case.text) is not None
        assert has_han == (case.language == "zh"), case


def test_every_second_blind_secret_is_written_in_its_text_and_look_alikes_carry_none():
    for case in blind2.secret_cases():
        assert case.secret and case.secret in case.text, case
    assert all(case.secret == "" for case in blind2.lookalike_cases())


def _digits(text: str) -> str:
    """Digits (full-width ones too) and a trailing X, separators dropped."""
    return "".join(str(int(c)) if c.isdigit() else "X" for c in text if c.isdigit() or c in "Xx")


def test_second_blind_numbers_pass_or_fail_their_checksums_as_labelled():
    for case in blind2.secret_cases():
        if case.family == "card":
            assert values.luhn_ok(_digits(case.secret)), case
        if case.family == "prc_id":
            number = _digits(case.secret)
            assert len(number) == 18 and values.prc_id_check(number[:17]) == number[17], case
        if case.family == "iban":
            assert values.iban_ok(case.secret), case
    for case in blind2.lookalike_cases():
        if case.family in ("card_bad_luhn", "prc_id_bad"):
            run = re.search(r"\d[\d .-]{11,22}[\dX]", case.text)
            assert run, case
            number = _digits(run.group())
            if case.family == "card_bad_luhn":
                assert not values.luhn_ok(number), case
            else:
                assert values.prc_id_check(number[:17]) != number[17], case
        if case.family == "iban_bad":
            run = re.search(r"[A-Z]{2}\d{2}[A-Z0-9 ]{10,}", case.text)
            assert run and not values.iban_ok(run.group().strip()), case


_UNWRAP = {
    "urlencoded": unquote,
    "base64": lambda s: base64.b64decode(s).decode(),
    "html_entities": html.unescape,
    "json_escaped": lambda s: json.loads(f'"{s}"'),
}


def test_second_blind_disguises_cover_the_wrappings_and_really_wrap():
    disguised = [case for case in blind2.secret_cases() if case.disguise != "plain"]
    names = {case.disguise for case in disguised}
    for name in ("urlencoded", "base64", "fullwidth", "zero_width", "split_spaces",
                 "html_entities", "json_escaped", "line_wrapped"):  # fmt: skip
        assert name in names
    for case in disguised:
        assert case.family == f"disguise_{case.disguise}", case
        if case.disguise in _UNWRAP:
            assert _UNWRAP[case.disguise](case.secret) != case.secret, case
        if case.disguise.startswith("fullwidth"):
            assert not re.search(r"[A-Za-z0-9]", case.secret), case
        if case.disguise == "zero_width":
            assert re.search("[\u200b-\u200d\u2060\ufeff]", case.secret), case
