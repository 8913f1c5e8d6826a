"""Normalization, fingerprints, and the lexical near-duplicate / contradiction check.

Everything here is deterministic and cheap (no model, no database), so the remember flow can
assess a new memory against its neighbours on every write. It only reports: a near-duplicate
or a possible contradiction lands in the receipt (`similar`, `contradictions`), never blocks.

English and Chinese are handled side by side. Latin words are lowercased, lightly stemmed and
stripped of stopwords; Chinese runs become character bigrams (Chinese has no spaces, and
bigrams are the standard cheap stand-in for words). Polarity words — negations ("not", 不,
不再) and the poles of antonym pairs (enable/disable, 启用/禁用) — are taken out of the terms
and counted separately, so "use X" and "don't use X" share all their terms and differ only in
polarity, which is exactly what a contradiction looks like.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

# Jaccard on content terms. Memories are short (typically 2-8 content terms), so 0.6 means
# rewordings, articles, plural/tense changes, or one extra term in four: "Use pnpm for this
# repo" / "use pnpm in this repo" (1.0), "项目使用 pnpm 管理依赖" / "项目用 pnpm 管理依赖" (0.83).
NEAR_DUPLICATE_THRESHOLD = 0.6
# A contradiction needs both texts to be about the same thing: at least half of their
# distinct content terms shared. Real opposites score high because polarity words are not
# terms ("Never use tabs in Go files" / "Use tabs for indentation in Go files": 0.75), while
# same-topic statements about different situations stay under it ("Redis is not used in the
# lite profile" / "Use Redis for Celery in the team profile": 0.4).
CONTRADICTION_THRESHOLD = 0.5

SEPARATOR = "\x1f"
_WHITESPACE = re.compile(r"\s+")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’-][^\W_{_CJK}]+)*")


def normalize(text: str) -> str:
    """NFKC (full-width → half-width), casefold, one space between words, no trailing
    full stop or exclamation mark: "Use uv." and "  use UV " are the same statement."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = unicodedata.normalize("NFKC", text)  # casefolding can leave non-NFKC sequences
    return _WHITESPACE.sub(" ", text).strip().rstrip(" .。!")


def fingerprint(content: str, scope_type: str, scope_key: str) -> str:
    payload = SEPARATOR.join((normalize(content), scope_type, scope_key))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# --- polarity vocabulary ------------------------------------------------------------------

MarkerKind = Literal["positive", "negative", "alternative"]
Marker = tuple[MarkerKind, str]  # (kind, the word it is recorded as: "enabled" → "enable")

# (positive, negative) pairs. The negative pole counts as one negation, so "don't disable X"
# (two) agrees with "enable X" (zero), and "禁止 X" agrees with "不允许 X".
ANTONYM_PAIRS: tuple[tuple[str, str], ...] = (
    ("enable", "disable"), ("allow", "deny"), ("allow", "forbid"), ("allow", "disallow"),
    ("always", "never"), ("use", "avoid"), ("prefer", "avoid"), ("include", "exclude"),
    ("accept", "reject"), ("true", "false"), ("on", "off"), ("start", "stop"),
    ("启用", "禁用"), ("允许", "禁止"), ("允许", "不允许"), ("喜欢", "讨厌"), ("喜欢", "不喜欢"),
    ("总是", "从不"), ("始终", "从不"), ("打开", "关闭"), ("开启", "关闭"), ("使用", "避免"),
    ("采用", "避免"), ("偏好", "避免"), ("包含", "排除"), ("接受", "拒绝"),
)  # fmt: skip
# Two options where choosing one rejects the other; neither side is a negation.
ALTERNATIVE_PAIRS: tuple[tuple[str, str], ...] = (
    ("sync", "async"),
    ("synchronous", "asynchronous"),
    ("同步", "异步"),
)
ENGLISH_NEGATIONS = frozenset(
    "not no never without cannot nor dont doesnt didnt isnt arent wasnt werent wont cant "
    "shouldnt mustnt couldnt wouldnt neednt havent hasnt".split()
)
CHINESE_NEGATIONS = frozenset(
    "不 没 没有 别 不要 不再 不用 禁止 勿 请勿 无需 不需要 不必 从不 从未 未".split()
)
# Words that contain a negation character but negate nothing (不错 "good", 不过 "but",
# 别人 "others", 未来 "future"). 不得不 ("have to") is a double negative, hence positive.
CHINESE_NON_NEGATIONS = frozenset(
    "不错 不断 不过 不同 不少 不久 不仅 不但 不管 不论 不然 要不 不得不 不足 差不多 了不起 "
    "没错 别人 别的 分别 特别 区别 类别 级别 别名 识别 个别 差别 性别 告别 未来".split()
)
STOPWORDS = frozenset(
    "a an the and or but if then so of to in into for with by from at as about be is are was "
    "were been being am do does did done have has had will would should could can may might "
    "must shall this that these those it its we our us i me my you your he she they them "
    "their there here when where which who what how why all any each more most some such only "
    "also just than too very up out over via per instead please let lets like one while".split()
)


def _inflections(word: str) -> set[str]:
    """use → uses, used, using; stop → stopped, stopping; deny → denies, denied."""
    forms = {word, word + "s", word + "es", word + "ed", word + "ing", word + "d"}
    if word.endswith("e"):
        forms |= {word[:-1] + "ing"}
    if word.endswith("y"):
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if re.search(r"[^aeiou][aeiou][bdgmnprt]$", word):
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing", word + word[-1] + "en"}
    return forms


def _build_markers() -> tuple[dict[str, Marker], dict[str, Marker | None]]:
    latin: dict[str, Marker] = {}
    cjk: dict[str, Marker | None] = {}
    entries: list[tuple[str, MarkerKind]] = [(w, "negative") for w in CHINESE_NEGATIONS]
    for positive, negative in ANTONYM_PAIRS:
        entries += [(positive, "positive"), (negative, "negative")]
    for first, second in ALTERNATIVE_PAIRS:
        entries += [(first, "alternative"), (second, "alternative")]
    for word, kind in entries:
        if re.match(rf"[{_CJK}]", word):
            cjk[word] = (kind, word)
        else:
            latin.update({form: (kind, word) for form in _inflections(word)})
    latin["forbade"] = ("negative", "forbid")
    cjk.update(dict.fromkeys(CHINESE_NON_NEGATIONS))  # None: an ordinary word
    return latin, cjk


_LATIN_MARKERS, _CJK_WORDS = _build_markers()
_LONGEST_CJK_WORD = max(map(len, _CJK_WORDS))


def stem(word: str) -> str:
    """Just enough stemming for overlap: cache/caches/cached/caching → cach, tabs → tab."""
    if not word.isalpha():
        return word
    if len(word) > 4 and word.endswith(("ies", "ied")):
        word = word[:-3] + "y"
    elif len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running → run, committed → commit
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


# --- analysis -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TextAnalysis:
    normalized: str
    terms: frozenset[str]
    negative: tuple[str, ...]  # negations and negative poles, e.g. ("don't",), ("不再",)
    positive: tuple[str, ...]  # positive poles, e.g. ("enable",), ("使用",)
    alternatives: tuple[str, ...]

    @property
    def polarity(self) -> int:
        """0 for an affirmative statement, 1 for a negated one (an odd number of negations)."""
        return len(self.negative) % 2


class _Collector:
    def __init__(self) -> None:
        self.terms: set[str] = set()
        self.markers: dict[MarkerKind, list[str]] = {
            "positive": [],
            "negative": [],
            "alternative": [],
        }

    def add_word(self, word: str, *, with_polarity: bool = True) -> None:
        word = word.replace("’", "'").removesuffix("'s")
        if word.endswith("n't") or word.replace("'", "") in ENGLISH_NEGATIONS:
            if with_polarity:
                self.markers["negative"].append(word)
            return
        if word in STOPWORDS:
            return
        marker = _LATIN_MARKERS.get(word)
        if marker is not None:
            if with_polarity:
                self.markers[marker[0]].append(marker[1])
            return
        if len(word) >= 2 or word.isdigit():
            self.terms.add(stem(word))

    def add_cjk_run(self, run: str) -> None:
        """Split the run at polarity words (longest match first, ordinary words like 不错
        protected), then turn each remaining piece into character bigrams."""
        piece_start, position = 0, 0
        while position < len(run):
            for length in range(min(_LONGEST_CJK_WORD, len(run) - position), 0, -1):
                word = run[position : position + length]
                if word in _CJK_WORDS:
                    break
            else:
                position += 1
                continue
            marker = _CJK_WORDS[word]
            if marker is not None:
                self._add_bigrams(run[piece_start:position])
                self.markers[marker[0]].append(marker[1])
                piece_start = position + length
            position += length
        self._add_bigrams(run[piece_start:])

    def _add_bigrams(self, piece: str) -> None:
        if len(piece) == 1:
            self.terms.add(piece)
        self.terms.update(piece[i : i + 2] for i in range(len(piece) - 1))


@functools.lru_cache(maxsize=2048)  # remember compares one new text with many neighbours
def analyze(text: str) -> TextAnalysis:
    collector = _Collector()
    normalized = normalize(text)
    for token in _TOKEN.findall(normalized):
        if re.match(rf"[{_CJK}]", token):
            collector.add_cjk_run(token)
        elif "-" in token:
            # Compounds ("no-op", "opt-in", "non-blocking") carry no polarity of their own.
            for part in token.split("-"):
                collector.add_word(part, with_polarity=False)
        else:
            collector.add_word(token)
    markers = collector.markers
    return TextAnalysis(
        normalized,
        frozenset(collector.terms),
        tuple(markers["negative"]),
        tuple(markers["positive"]),
        tuple(markers["alternative"]),
    )


def tokens(text: str) -> list[str]:
    """The normalized word and CJK-run tokens of a text, in order."""
    return _TOKEN.findall(normalize(text))


def is_cjk(token: str) -> bool:
    return bool(_CJK_START.match(token))


_CJK_START = re.compile(rf"[{_CJK}]")


def terms(text: str) -> frozenset[str]:
    return analyze(text).terms


# --- assessment ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Assessment:
    similarity: float  # Jaccard on content terms, 0.0-1.0
    near_duplicate: bool
    contradiction: str | None  # "negation", "antonym: enable/disable", ...


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    shared = len(first & second)
    union = len(first) + len(second) - shared
    return shared / union if union else 0.0


def _alternative_between(first: TextAnalysis, second: TextAnalysis) -> str | None:
    for one, other in ALTERNATIVE_PAIRS:
        a_one, a_other = one in first.alternatives, other in first.alternatives
        b_one, b_other = one in second.alternatives, other in second.alternatives
        if (a_one and b_other and not a_other and not b_one) or (
            a_other and b_one and not a_one and not b_other
        ):
            return f"antonym: {one}/{other}"
    return None


def _antonym_between(first: TextAnalysis, second: TextAnalysis) -> str | None:
    for positive, negative in ANTONYM_PAIRS:
        if (positive in first.positive and negative in second.negative) or (
            positive in second.positive and negative in first.negative
        ):
            return f"antonym: {positive}/{negative}"
    return None


def assess(new: str, existing: str) -> Assessment:
    """Compare a new memory with an existing one. Texts equal after normalization are exact
    duplicates (similarity 1.0). Otherwise they oppose each other when their negation parity
    differs, or when each picks a different side of an alternative (sync vs async) — but not
    both, since "don't use async" agrees with "use sync"."""
    first, second = analyze(new), analyze(existing)
    if first.normalized == second.normalized:
        return Assessment(1.0, True, None)
    similarity = _jaccard(first.terms, second.terms)
    if similarity < min(NEAR_DUPLICATE_THRESHOLD, CONTRADICTION_THRESHOLD):
        # Neither a near-duplicate nor a contradiction, whatever the polarity: most of the
        # hundreds of neighbours a write is compared with end here.
        return Assessment(round(similarity, 4), False, None)
    alternative = _alternative_between(first, second)
    opposed = (first.polarity != second.polarity) != (alternative is not None)
    contradiction = None
    if opposed and similarity >= CONTRADICTION_THRESHOLD:
        contradiction = alternative or _antonym_between(first, second) or "negation"
    near_duplicate = not opposed and similarity >= NEAR_DUPLICATE_THRESHOLD
    return Assessment(round(similarity, 4), near_duplicate, contradiction)
