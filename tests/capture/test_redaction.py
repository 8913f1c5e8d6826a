"""Redaction before storage: unit cases, and properties over generated card and ID numbers."""

from __future__ import annotations

import hashlib
from datetime import date

from hypothesis import assume, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from capture.redaction import redact
from memories import gates
from memories.identifiers import card_number_valid, luhn_valid, prc_id_check_char
from tests.secrets_corpus import CAUGHT  # a realistic secret for every rule

TEMPLATES = (
    "My card is {} thanks",
    "pay with {}.",
    "我的卡号是{}，谢谢",
    "卡号：{}。请记住",
    "{}",
    "(card {}) expires 09/29",
)
# (issuer prefix, length, grouping of the printed form)
ISSUERS = (
    ("4", 16, (4, 4, 4, 4)), ("4", 13, None), ("4", 19, (4, 4, 4, 4, 3)), ("51", 16, (4, 4, 4, 4)),
    ("55", 16, (4, 4, 4, 4)), ("2221", 16, (4, 4, 4, 4)), ("34", 15, (4, 6, 5)), ("37", 15, (4, 6, 5)),
    ("6011", 16, (4, 4, 4, 4)), ("62", 19, (4, 4, 4, 4, 3)), ("3530", 16, (4, 4, 4, 4)),
)  # fmt: skip


def luhn_digit(body: str) -> str:
    return next(str(d) for d in range(10) if luhn_valid(body + str(d)))


@st.composite
def cards(draw, *, valid: bool):
    prefix, length, groups = draw(st.sampled_from(ISSUERS))
    body = prefix + draw(
        st.text("0123456789", min_size=length - len(prefix) - 1, max_size=length - len(prefix) - 1)
    )
    check = luhn_digit(body)
    if not valid:
        check = draw(st.sampled_from([d for d in "0123456789" if d != check]))
    digits = body + check
    separator = draw(st.sampled_from(["", " ", "-"])) if groups else ""
    if separator:
        parts, start = [], 0
        for size in groups:
            parts.append(digits[start : start + size])
            start += size
        return digits, separator.join(parts)
    return digits, digits


@st.composite
def prc_ids(draw, *, valid: bool):
    region = str(draw(st.integers(100000, 999999)))
    born = draw(st.dates(min_value=date(1900, 1, 1), max_value=date.today()))
    first17 = region + born.strftime("%Y%m%d") + str(draw(st.integers(0, 999))).zfill(3)
    check = prc_id_check_char(first17)
    if not valid:
        check = draw(st.sampled_from([c for c in "0123456789X" if c != check]))
    return first17 + check


@hypothesis_settings(max_examples=300, deadline=None)
@given(card=cards(valid=True), template=st.sampled_from(TEMPLATES))
def test_valid_card_numbers_are_always_redacted(card, template):
    digits, printed = card
    result = redact(template.format(printed))
    assert result.counts == {"card_number": 1}
    assert printed not in result.text and digits not in result.text.replace(" ", "").replace(
        "-", ""
    )


@hypothesis_settings(max_examples=300, deadline=None)
@given(card=cards(valid=False), template=st.sampled_from(TEMPLATES))
def test_card_shaped_numbers_failing_luhn_are_left_alone(card, template):
    text = template.format(card[1])
    assert redact(text).text == text


@hypothesis_settings(max_examples=300, deadline=None)
@given(number=prc_ids(valid=True), template=st.sampled_from(TEMPLATES + ("身份证号码{}",)))
def test_valid_prc_id_numbers_are_always_redacted(number, template):
    result = redact(template.format(number))
    assert result.counts == {"prc_id_number": 1}
    assert number not in result.text


@hypothesis_settings(max_examples=300, deadline=None)
@given(number=prc_ids(valid=False), template=st.sampled_from(TEMPLATES + ("身份证号码{}",)))
def test_id_shaped_numbers_failing_the_checksum_are_left_alone(number, template):
    assume(not card_number_valid(number))  # an 18-digit number can also be a real card number
    text = template.format(number)
    assert redact(text).text == text


@hypothesis_settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(max_size=40),
    secret=st.sampled_from([text for _, text in CAUGHT]),
    suffix=st.text(max_size=40),
)
def test_the_cheap_precheck_never_lets_a_secret_through(prefix, secret, suffix):
    text = prefix + secret + suffix
    assert redact(text).text == gates.redact(text)[0]


def test_an_impossible_birth_date_is_not_an_id_number():
    first17 = "11010519490230001"  # 30 February
    number = first17 + prc_id_check_char(first17)
    assert redact(f"编号 {number}").counts == {}


def test_each_rule_is_counted_and_only_the_hash_of_the_original_is_kept():
    original = (
        "用户密码是 Zq8!vR2#kL9，卡号 5555-5555-5555-4444，"
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload123456 and AKIAIOSFODNN7EXAMPLE"
    )
    result = redact(original)
    assert result.counts == {
        "password_assignment": 1, "card_number": 1, "authorization_header": 1, "aws_access_key": 1,
    }  # fmt: skip
    assert "Zq8!vR2#kL9" not in result.text and "5555" not in result.text
    assert "[REDACTED:card_number]" in result.text and result.text.startswith(
        "用户密码是 [REDACTED:"
    )
    assert result.original_sha256 == hashlib.sha256(original.encode()).hexdigest()


def test_ordinary_mixed_text_passes_unchanged():
    text = "我们决定用 PostgreSQL 16；订单号 20261129000123 与电话 13800138000 都不是密钥。"
    assert redact(text).text == text and redact(text).counts == {}
