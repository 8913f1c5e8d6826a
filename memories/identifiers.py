"""Checksums of personal numbers the write gate and capture redaction look for.

A card number or an ID number is only reported when its check digit is right, so order
numbers, timestamps and phone numbers of the same length pass untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

# Issuer prefixes of the card networks (IIN ranges) and the lengths each issues.
_CARD_PREFIXES: tuple[tuple[tuple[int, int], int, tuple[int, ...]], ...] = (
    ((4, 4), 1, (13, 16, 19)),  # Visa
    ((51, 55), 2, (16,)),  # Mastercard
    ((2221, 2720), 4, (16,)),  # Mastercard 2-series
    ((34, 34), 2, (15,)),  # American Express
    ((37, 37), 2, (15,)),
    ((300, 305), 3, (14,)),  # Diners Club
    ((36, 36), 2, (14,)),
    ((38, 39), 2, (14, 16)),
    ((6011, 6011), 4, (16, 17, 18, 19)),  # Discover
    ((644, 649), 3, (16, 17, 18, 19)),
    ((65, 65), 2, (16, 17, 18, 19)),
    ((3528, 3589), 4, (16, 17, 18, 19)),  # JCB
    ((62, 62), 2, (16, 17, 18, 19)),  # UnionPay
)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def card_shaped(digits: str) -> bool:
    """A known issuer prefix with a length that issuer uses (whatever the check digit)."""
    if not digits.isascii() or not digits.isdigit():
        return False
    return any(
        len(digits) in lengths and low <= int(digits[:width]) <= high
        for (low, high), width, lengths in _CARD_PREFIXES
    )


def card_number_valid(digits: str) -> bool:
    """A payment card number: a known issuer prefix, that issuer's length, the Luhn digit."""
    return card_shaped(digits) and luhn_valid(digits)


_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def prc_id_check_char(first17: str) -> str:
    """ISO 7064 MOD 11-2 check character of a PRC resident identity number."""
    return _ID_CHECK[sum(int(c) * w for c, w in zip(first17, _ID_WEIGHTS, strict=True)) % 11]


def prc_id_valid(number: str, *, today: date | None = None) -> bool:
    """18 characters: region, birth date (a real day, not in the future), sequence, check."""
    if len(number) != 18 or not number[:17].isascii() or not number[:17].isdigit():
        return False
    try:
        born = date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    if not date(1900, 1, 1) <= born <= (today or date.today()):
        return False
    return prc_id_check_char(number[:17]) == number[17].upper()


# IBAN lengths of the countries that issue them (the SWIFT registry), by country code.
_IBAN_LENGTHS = dict(
    (entry[:2], int(entry[2:]))
    for entry in (
        "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 "
        "EE20 EG29 ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 "
        "IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 "
        "MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 SK24 SM27 TN24 "
        "TR26 UA29 VA22 VG24 XK20"
    ).split()
)


def iban_valid(text: str) -> bool:
    """An International Bank Account Number: a country's length and the mod-97 check."""
    iban = text.replace(" ", "").upper()
    if _IBAN_LENGTHS.get(iban[:2]) != len(iban) or not iban.isascii() or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


_IBAN = re.compile(
    r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])"
)


def iban_spans(text: str) -> Iterator[tuple[int, int]]:
    for match in _IBAN.finditer(text):
        if iban_valid(match[0]):
            yield match.span()
