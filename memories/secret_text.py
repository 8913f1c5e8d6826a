"""Text as the secret rules read it: normalised, and with its encoded segments opened.

A credential disguised with look-alike characters, invisible characters, full-width digits
or an encoding is still a credential. `normalise` turns text into the form the rules are
written for (Unicode NFKC, invisible and format characters removed, confusable Cyrillic and
Greek letters folded to ASCII, every dash and space variant made plain) and keeps, for each
character of the result, where it came from, so a finding can be mapped back onto the
original text. `encoded_segments` yields the %-encoded and base64-looking segments of a
text with what they decode to, so the rules can be run again on the decoded form; the
caller bounds the depth, and `DecodeBudget` the total size decoded per scan.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote

# Letters that render like ASCII ones in most fonts (Cyrillic, Greek, Latin small capitals).
_CONFUSABLES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеѕіјорсхуԁһԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοριυνκτɡıɑℓ",
    "ABESIJKMHOPCTXYaesijopcxydhqwABEZHIKMNOPTYXaopiuvktgial",
)
# Dashes and minus signs NFKC leaves alone; each becomes "-".
_DASHES = str.maketrans(dict.fromkeys("‐‑‒–—―−﹣⁃", "-"))
# Invisible characters outside the format category (Cf) that NFKC keeps.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0") | frozenset(
    chr(code) for code in range(0xFE00, 0xFE10)
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


@lru_cache(maxsize=8192)
def _fold(char: str) -> str:
    if char in _INVISIBLE or unicodedata.category(char) == "Cf":
        return ""  # soft hyphen, zero-width characters, bidi controls, BOM, word joiner
    folded = unicodedata.normalize("NFKC", char).translate(_CONFUSABLES).translate(_DASHES)
    return " " if folded.isspace() and folded not in "\n\r\t" else folded


@dataclass(frozen=True)
class Normalised:
    """`text` as the rules read it; `starts[i]` is the index in the original text of the
    character that produced `text[i]` (None when nothing changed)."""

    text: str
    starts: list[int] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        if self.starts is None:
            return start, end
        return self.starts[start], self.starts[end - 1] + 1


class _FoldTable(dict):
    """str.translate's table, filled on first sight of each character; `irregular` holds
    the characters that fold to other than exactly one character."""

    irregular: set[str] = set()

    def __missing__(self, code: int) -> str:
        folded = self[code] = _fold(chr(code))
        if len(folded) != 1:
            self.irregular.add(chr(code))
        return folded


_TABLE = _FoldTable()


def normalise(text: str) -> Normalised:
    if text.isascii():
        return Normalised(text)
    folded = text.translate(_TABLE)  # one pass in C for the usual case
    if folded == text:
        return Normalised(text)
    if _TABLE.irregular.isdisjoint(text):
        return Normalised(folded)  # one character for one: positions are unchanged
    pieces: list[str] = []
    starts: list[int] = []
    position, changed = 0, False
    for run in _NON_ASCII.finditer(text):
        begin, end = run.span()
        pieces.append(text[position:begin])
        starts.extend(range(position, begin))
        folded = [_fold(char) for char in run[0]]
        joined = "".join(folded)
        pieces.append(joined)
        if joined == run[0]:
            starts.extend(range(begin, end))
            position = end
            continue
        changed = True
        if len(joined) == end - begin and all(len(piece) == 1 for piece in folded):
            starts.extend(range(begin, end))  # one character for one (the usual case)
        else:
            for index, piece in enumerate(folded, begin):
                starts.extend([index] * len(piece))
        position = end
    if not changed:
        return Normalised(text)
    pieces.append(text[position:])
    starts.extend(range(position, len(text)))
    return Normalised("".join(pieces), starts)


# --- encoded segments ---------------------------------------------------------------------

MAX_DEPTH = 3  # base64 inside %-encoding inside base64, and no further
MAX_SEGMENT = 16_384  # characters; longer blobs are data, not a wrapped token
_WORD = re.compile(r"[^\s\"'<>=&?]+")  # a %-encoded segment is one of these with an escape
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_BASE64_SEGMENT = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"[0-9a-fA-F]+")
# A run with JSON string escapes ("a\\/b\\u002bc") or HTML character references ("p&#64;ss").
_JSON_ESCAPED = re.compile(r"(?:[A-Za-z0-9+/=_.~-]|\\[/\\\"]|\\u[0-9a-fA-F]{4}){8,}")
_HTML_ESCAPED = re.compile(
    r"(?:[^\s\"'<>&]|&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};|&[A-Za-z]{2,8};)+"
)


@dataclass
class DecodeBudget:
    """Characters one scan may still decode: a text full of base64 costs at most this."""

    remaining: int = 262_144
    seen: set[str] = field(default_factory=set)

    def take(self, segment: str) -> bool:
        if len(segment) > MAX_SEGMENT or len(segment) > self.remaining or segment in self.seen:
            return False
        self.remaining -= len(segment)
        self.seen.add(segment)
        return True


# A token split into groups to get past scanners: "nfp_YfWH Qw7NpKtx pxYfDB2W BoWq0Kvd". A
# group looks made when a digit meets a letter or a capital follows a small letter.
_MIXED_PAIR = r"(?:[0-9][A-Za-z]|[A-Za-z][0-9]|[a-z][A-Z])"
_MIXED = re.compile(_MIXED_PAIR)
_SPACED_PAIR = re.compile(
    _MIXED_PAIR + r"[A-Za-z0-9_.-]{0,7} {1,2}[A-Za-z0-9_.-]{0,7}" + _MIXED_PAIR
)
_SPACED_RUN = re.compile(
    r"(?<![^\s:：(（])[A-Za-z0-9_.-]{1,8}(?: {1,2}[A-Za-z0-9_.-]{1,8}){3,15}(?![^\s,，。)）])"
)


def _printable(text: str) -> bool:
    shown = sum(char.isprintable() or char in "\n\r\t" for char in text)
    return bool(text) and shown >= 0.95 * len(text)


def decode_base64(segment: str) -> str | None:
    """The text a base64 (standard or URL-safe) segment encodes, when it is printable."""
    body = segment.rstrip("=")
    if len(body) % 4 == 1 or _HEX.fullmatch(body):
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        if "-" in body or "_" in body:
            raw = base64.urlsafe_b64decode(padded)
        else:
            raw = base64.b64decode(padded, validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if _printable(decoded) else None


def encoded_segments(text: str, budget: DecodeBudget) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded) for each segment of `text` that decodes to something else."""
    words = _WORD.finditer(text) if "%" in text else ()
    for match in words:
        if "%" in match[0] and _PERCENT_ESCAPE.search(match[0]) and budget.take(match[0]):
            decoded = unquote(match[0])
            if decoded != match[0]:
                yield match.start(), match.end(), decoded
    if "\\" in text:
        for match in _JSON_ESCAPED.finditer(text):
            if "\\" in match[0] and budget.take(match[0]):
                try:
                    decoded = json.loads(f'"{match[0]}"')
                except ValueError:
                    continue
                yield match.start(), match.end(), decoded
    if "&" in text:
        for match in _HTML_ESCAPED.finditer(text):
            if "&" in match[0] and budget.take(match[0]):
                decoded = html.unescape(match[0])
                if decoded != match[0]:
                    yield match.start(), match.end(), decoded
    lines: set[tuple[int, int]] = set()
    for hit in _SPACED_PAIR.finditer(text):  # two made-looking groups side by side
        line_end = text.find("\n", hit.end())
        lines.add((text.rfind("\n", 0, hit.start()) + 1, len(text) if line_end == -1 else line_end))
    for line_start, line_end in sorted(lines):
        for match in _SPACED_RUN.finditer(text, line_start, line_end):
            chunks = match[0].split()
            mixed = sum(_MIXED.search(chunk) is not None for chunk in chunks)
            if mixed * 2 >= len(chunks) and budget.take(match[0]):
                yield match.start(), match.end(), "".join(chunks)
    for match in _BASE64_SEGMENT.finditer(text):
        segment = match[0]
        if budget.take(segment) and (decoded := decode_base64(segment)) is not None:
            yield match.start(), match.end(), decoded
