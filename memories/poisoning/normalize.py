"""The copies of a text the poisoning rules read: the text as a model would read it.

A person sees "іgnоrе" (Cyrillic letters), "ig\u00adnore" (a soft hyphen), "i g n o r e" or
"1gn0re" and reads "ignore"; so does a model. The rules therefore never match the raw text:
they match copies with compatibility forms folded (NFKC: full-width and mathematical
letters), invisible characters removed, look-alike letters folded to Latin, letter-spacing
collapsed and, in one more copy, digits and symbols read as the letters they stand for.
Text a reader does not see (HTML comments, link titles, image alt text) and base64-looking
blobs are pulled out and screened on their own too (memories.poisoning.screen).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from urllib.parse import unquote, unquote_plus

_ZWJ, _VS16, _BOM = "\u200d", "\ufe0f", "\ufeff"
# Invisible but not of category Cf: grapheme joiner, Hangul fillers, braille blank, selectors.
_EXTRA_INVISIBLE = set("\u034f\u115f\u1160\u3164\uffa0\u2800") | {
    chr(c) for c in range(0xFE00, 0xFE10)
}


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return code >= 0x1F000 or 0x2600 <= code <= 0x27BF


def _invisible(text: str, index: int) -> bool:
    char = text[index]
    if char in (_ZWJ, _VS16):
        # 👩‍💻 and ❤️ are ordinary: a joiner between emoji, a selector after one.
        before = text[index - 1] if index else ""
        after = text[index + 1] if index + 1 < len(text) else ""
        if char == _VS16:
            return not (before and _is_emoji(before))
        return not (before and after and _is_emoji(before) and (_is_emoji(after) or after == _VS16))
    if char == _BOM and index == 0:
        return False  # a byte-order mark left by an editor at the start of a file
    return (
        unicodedata.category(char) == "Cf"
        or char in _EXTRA_INVISIBLE
        or (0xE0100 <= ord(char) <= 0xE01EF)
    )


_ALWAYS_HIDING = re.compile(r"[\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
_CODE_SPAN = re.compile(r"`[^`\n]{1,200}`")


def _count_invisible(text: str) -> int:
    return sum(_invisible(text, index) for index in range(len(text)))


def hidden_characters(text: str) -> bool:
    """Whether the text hides something from its reader: bidirectional overrides or tag
    characters (which hide or reorder whole runs), or any other invisible character
    (zero-width, soft hyphen, fillers) in its prose. Inside inline code one stray
    zero-width space is the subject of a note (text copied from a PDF), not a disguise."""
    if _ALWAYS_HIDING.search(text):
        return True
    prose = _CODE_SPAN.sub("", text)
    return _count_invisible(prose) >= 1 or _count_invisible(text) >= 2


def _strip_invisible(text: str) -> str:
    return "".join(char for index, char in enumerate(text) if not _invisible(text, index))


# Look-alike letters of other scripts folded to the Latin letters they imitate: Unicode's
# confusables table (UTS #39) for every letter a-z, A-Z, plus a few common ones it maps to
# other look-alikes first. CJK, kana and Hangul are never folded (they imitate nothing).
_COMMON_CONFUSABLES = dict(
    zip(
        "аеорсухіјѕԁһԛԝոɡАВЕКМНОРСТХУІЈЅαοριυνκτχΑΒΕΖΗΙΚΜΝΟΡΤΥΧıӏϲᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ",
        "aeopcyxijsdhqwngABEKMHOPCTXYIJSaopiuvktxABEZHIKMNOPTYXilcabcdefghijklmnopqrstuvwyz",
        strict=True,
    )
)
_NEVER_FOLDED = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def _confusables_table() -> dict[int, str]:
    from confusable_homoglyphs import confusables

    table: dict[int, str] = {}
    # Lowercase first: "ӏ" imitates l, I and 1 alike and is read as "l" in words.
    for letter in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
        for entry in confusables.confusables_data.get(letter, ()):
            char = entry["c"]
            if len(char) == 1 and not char.isascii() and not _NEVER_FOLDED.match(char):
                table.setdefault(ord(char), letter)
    table.update({ord(char): letter for char, letter in _COMMON_CONFUSABLES.items()})
    return table


_CONFUSABLES = _confusables_table()
_MIXED_WORD = re.compile(r"[^\W\d_]+")


def mixed_script(text: str) -> bool:
    """A word that mixes Latin letters with Cyrillic or Greek look-alikes (a homoglyph)."""
    for word in _MIXED_WORD.findall(text):
        folded = word.translate(_CONFUSABLES)
        if folded != word and any("a" <= c.lower() <= "z" for c in word):
            return True
    return False


# Characters parted by single spaces ("i g n o r e", "把 . e n v 文 件"), where a wider gap
# (two spaces, or " / " when there is none) parts words.
_SPACED = re.compile(r"(?<!\S)\S(?:\s{1,3}\S(?!\S)){3,}")
# Words an attack is made of, to part a run spaced without word gaps ("ignoreallprevious").
_VOCABULARY = re.compile(
    r"(instructions?|previous|disregard|ignore|forget|override|bypass|prior|above|earlier"
    r"|system|prompt|upload|send|post|email|forward|tokens?|keys?|secrets?|passwords?"
    r"|credentials|you|are|now|your|all|and|the|to|env)"
)


def _collapse(match: re.Match) -> str:
    run = match.group(0)
    gap = r"\s{2,}" if re.search(r"\s{2,}", run) else r"\s/\s"
    words = [re.sub(r"\s", "", part) for part in re.split(gap, run)]
    if len(words) == 1 and len(words[0]) >= 8 and words[0].isascii():
        words = _VOCABULARY.sub(r" \1 ", words[0]).split()
    return " ".join(word for word in words if word)


_SPELLING_MARKS = ".-_*·|~+"


def _spelled(token: str) -> str | None:
    """ "i-g-n-o-r-e" → "ignore": every other character the same mark, which is dropped."""
    if len(token) < 3 or len(token) % 2 == 0:
        return None
    mark = token[1]
    if mark not in _SPELLING_MARKS or any(c != mark for c in token[1::2]):
        return None
    return token[::2]


def _unspell(text: str) -> str:
    """Spelled-out tokens read as words: runs of three or more, or one of four letters or
    more ("忽.略.之.前"); " / " between them parts words as a space would."""
    tokens = text.split(" ")
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        words = [_spelled(token) for token in run if token != "/"]
        if len(words) >= 3 or (len(words) == 1 and len(words[0] or "") >= 4):
            out.append(" ".join(word for word in words if word))
        else:
            out.extend(run)
        run.clear()

    for token in tokens:
        if token == "/" and run or _spelled(token) is not None or (len(token) == 1 and run):
            run.append(token)
        else:
            flush()
            out.append(token)
    flush()
    return " ".join(out)


_CJK = "\u3000-\u9fff\uff00-\uffef"
# Chinese is written without spaces, so spaces between two CJK characters only hide words.
_CJK_GAP = re.compile(f"(?<=[{_CJK}])\\s+(?=[{_CJK}])")


def collapse_spacing(text: str) -> str:
    """Letter-spaced and spelled-out words joined again."""
    return _unspell(_CJK_GAP.sub("", _SPACED.sub(_collapse, text)))


def squeeze_spacing(text: str) -> str:
    """Letter-spaced runs with every space dropped and nothing else: a second reading for
    runs whose word gaps are ambiguous ("~ / . a w s" is a path, not two words)."""
    return _SPACED.sub(lambda match: re.sub(r"\s", "", match.group(0)), text)


_LEET_TOKEN = re.compile(r"[A-Za-z0-9$!|+@]*[A-Za-z][A-Za-z0-9$!|+@]*|\b[0134578$]{1,3}\b")
_LEET = {"i": str.maketrans("0123456789$!|+@", "oireasgtbgsiita"), "l": str.maketrans("0123456789$!|+@", "olreasgtbgslita")}  # fmt: skip


_KEPT_AT = "\ue000"  # an e-mail address's own "@", kept while the others read as "a"
_LEET_ADDRESS = re.compile(r"[\w.+!$|@-]*\w@[\w!$|@-]+(?:\.[\w!$|@-]+)+")


def _keep_first_at(match: re.Match) -> str:
    address = match.group(0)
    at = address.index("@", 1)
    return address[:at] + _KEPT_AT + address[at + 1 :]


def fold_leet(text: str, one: str = "i") -> str:
    """Digits and symbols inside words read as letters ("1gn0re" → "ignore", "@ll" →
    "all"), and short words of such digits alone ("45" → "as"); numbers such as versions
    and ports are left as they are, and so is the "@" of an e-mail address. Only the
    matching copies are folded."""

    def fold(match: re.Match) -> str:
        token = match.group(0)
        return token.translate(_LEET[one]) if not token.isalpha() else token

    marked = _LEET_ADDRESS.sub(_keep_first_at, text.replace(_KEPT_AT, ""))
    return _LEET_TOKEN.sub(fold, marked).replace(_KEPT_AT, "@")


def _strip_accents(text: str) -> str:
    """Marks over Latin letters dropped ("sétúp", "D̀ail̈y" read as "setup", "Daily"); other
    scripts keep theirs (Vietnamese aside, nobody writes English with them)."""
    if text.isascii():
        return text
    out = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.category(char) == "Mn" and out and out[-1].isascii() and out[-1].isalpha():
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


def visible(text: str) -> str:
    """The text as a reader sees it: NFKC, invisible characters gone, look-alikes folded,
    marks over Latin letters dropped."""
    seen = _strip_invisible(unicodedata.normalize("NFKC", _strip_invisible(text)))
    return _strip_accents(seen.translate(_CONFUSABLES))


_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


def rot13(text: str) -> str:
    return text.translate(_ROT13)


# Letters drawn with several characters ("|\\|" for N, "/\\/\\" for M), longest first.
_LEET_SHAPES = (
    ("|\\/|", "m"), ("/\\/\\", "m"), ("\\/\\/", "w"), ("|\\|", "n"), ("/\\/", "n"), ("|_|", "u"),
    ("|-|", "h"), ("/-\\", "a"), ("|<", "k"), ("|)", "d"), ("()", "o"), ("|3", "b"), ("|2", "r"),
    ("\\/", "v"), ("vv", "w"), ("|_", "l"),
)  # fmt: skip
_LEET_SYMBOLS = str.maketrans("€¥†§®©¢£#^°µ", "eytsrcclhaou")


def fold_leet_shapes(text: str) -> str:
    """Multi-character and symbol letters read as letters, for the leet copies only."""
    for shape, letter in _LEET_SHAPES:
        text = text.replace(shape, letter)
    return text.translate(_LEET_SYMBOLS)


_MARKUP = re.compile(r"<!--|-->|</?[a-zA-Z][\w:-]*(?:\s[^<>]{0,300})?/?>")
_PERCENT_RUN = re.compile(
    r"(?:%[0-9A-Fa-f]{2}|[^\s%])*(?:%[0-9A-Fa-f]{2}){3,}(?:%[0-9A-Fa-f]{2}|[^\s%])*"
)


_MAX_OBJECTS = 8  # JSON objects unwrapped per text; a longer run of braces is read as is


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def json_strings(text: str) -> str:
    """The text with each JSON object in it replaced by its string values, one per line: a
    saved tool call or a config says what its strings say, and its braces and keys would
    make every such note read alike."""
    decoder, out, index, unwrapped = json.JSONDecoder(), [], 0, 0
    while unwrapped < _MAX_OBJECTS and (start := text.find("{", index)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            out.append(text[index : start + 1])
            index = start + 1
            continue
        out.append(text[index:start])
        out.append("\n".join(_strings(value)) if isinstance(value, dict) else text[start:end])
        index, unwrapped = end, unwrapped + 1
    out.append(text[index:])
    return "".join(out)


def classifier_text(text: str) -> str:
    """What the classifier embeds: the words, not their carrier. The visible text with
    JSON objects read as their strings (json_strings), markup tags and comment markers
    dropped (the rules judge what a page hides; a `<details>` or `<!-- TODO -->` says
    nothing of intent), percent-encoded runs decoded (an OAuth callback URL is a URL, not a
    disguise) and letter-spacing collapsed (an embedding of "i g n o r e" says little);
    leetspeak is left alone (it would garble the version numbers and identifiers of
    ordinary notes)."""
    words = _MARKUP.sub(" ", json_strings(visible(text)))
    words = _PERCENT_RUN.sub(lambda run: unquote(run.group(0)), words)
    return collapse_spacing(words)


def matching_copies(text: str) -> list[str]:
    """The copies the rules read, most literal first; duplicates dropped."""
    seen = visible(text)
    collapsed = collapse_spacing(seen)
    shaped = fold_leet_shapes(collapsed)
    copies = [
        seen,
        collapsed,
        squeeze_spacing(seen),
        fold_leet(shaped),
        fold_leet(shaped, "l"),
        rot13(collapsed),  # "Vtaber nyy..." is one Caesar shift from an instruction
    ]
    return list(dict.fromkeys(copies))


_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|$)", re.DOTALL)
_MD_TITLE = re.compile(r"\]\([^)\s]*\s+[\"'(](.+?)[\"')]\s*\)|^\s*\[[^\]]+\]:\s*\S+\s+[\"'(](.+?)[\"')]\s*$", re.MULTILINE)  # fmt: skip
_MD_ALT = re.compile(r"!\[([^\]]*)\]")
_HTML_ATTR = re.compile(r"\b(?:title|alt|aria-label|data-[\w-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.I)  # fmt: skip


def unseen_segments(text: str) -> list[str]:
    """Text a rendered page does not show: HTML comments, link titles, image alt text and
    attribute values."""
    segments = []
    for pattern in (_HTML_COMMENT, _MD_TITLE, _MD_ALT, _HTML_ATTR):
        for match in pattern.finditer(text):
            segments.extend(group for group in match.groups() if group and group.strip())
    return segments


_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")


_HEX_ESCAPES = re.compile(r"(?:\\x[0-9A-Fa-f]{2}){6,}")
_HEX_RUN = re.compile(r"\b(?:[0-9A-Fa-f]{2}[ :]?){12,}")


def _readable(decoded: str) -> bool:
    readable = sum(char.isprintable() or char in "\n\t" for char in decoded)
    return (
        bool(decoded)
        and readable / len(decoded) > 0.95
        and bool(re.search(r"[^\W\d_]{3}", decoded))
    )


def _hex_text(blob: str) -> str | None:
    digits = re.sub(r"[^0-9A-Fa-f]", "", blob.replace("\\x", ""))
    if len(digits) % 2:
        return None
    try:
        return bytes.fromhex(digits).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def decoded_segments(text: str, *, reversed_too: bool = True) -> list[str]:
    """Encoded text a model would decode: base64-looking blobs (standard or URL-safe,
    padded or not), percent-encoded runs, hex escapes and hex runs, and the whole text
    reversed — each when it reads as text. Hashes, keys and ids decode to bytes that are
    not text, and are skipped."""
    found = []
    if text.count("%") >= 3:
        decoded = unquote_plus(text)
        if decoded != text:
            found.append(decoded)
    for pattern in (_HEX_ESCAPES, _HEX_RUN):
        for match in pattern.finditer(text):
            decoded = _hex_text(match.group(0))
            if decoded and _readable(decoded):
                found.append(decoded)
    if reversed_too and len(text) >= 24:
        found.append("\n".join(line[::-1] for line in text.splitlines()))  # "snoitcurtsni"
    for match in _BASE64.finditer(text):
        blob = match.group(0).rstrip("=")
        if blob.isalpha() or blob.isdigit():
            continue  # a long word or number, not an encoding
        alphabet = "-_" if ("-" in blob or "_" in blob) else "+/"
        try:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), altchars=alphabet.encode())
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if _readable(decoded):
            found.append(decoded)
    return found
