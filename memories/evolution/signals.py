"""What two statements say of each other, read clause by clause (no model, no database).

A memory is cut into clauses at sentence and clause punctuation ("Use pnpm; npm is not
needed" is two claims). Two clauses are about the same claim when they share most of
their content terms (memories.text.analyze); polarity words are not terms, so "use X" and
"don't use X" share all of theirs. Of such a pair this module tells:

- whether their polarity differs (a negation, an antonym pole, the other of two
  alternatives): the shape of a contradiction;
- which terms each holds that the other does not, and what kind they are: a value (a
  version, port, path, number, time, a named tool written as a name), a qualifier (an
  environment, platform or condition such as staging, CI, macOS, 生产), or a plain word;
- whether the new statement carries a change cue ("no longer", "switched to", 改用, 不再):
  the writer means to replace what was there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memories import text

_CLAUSE_BREAK = re.compile(
    r"(?<=[.;!?。；！？\n])\s*|\s*[;；，,：]\s*(?=\S)|:\s+|\s+[—–-]\s+|\s+(?:but|however|whereas)\s+",
    re.I,
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

CHANGE_CUES_EN = re.compile(
    r"\b(?:no\s+longer|not\s+anymore|any\s?more|instead\s+of|in\s+place\s+of|rather\s+than\s+the\s+old"
    r"|(?:switched|switching|moved|moving|migrated|migrating|changed|changing|upgraded|downgraded"
    r"|bumped|ported|converted)\s+(?:\w+\s+){0,3}?(?:from|to|over\s+to)"
    r"|replac(?:ed|es|ing)\b|supersed(?:ed|es)|deprecated|retired|dropped|going\s+forward|from\s+now\s+on"
    r"|(?:stopped|quit)\s+\w+ing|(?:was|were|got|has\s+been|have\s+been)\s+(?:removed|deleted|dropped|retired)"
    r"|\bno\s+more\b|\bnow\b"
    r"|as\s+of\s+(?:\w+\s*){1,3}|used\s+to\b|previously|formerly|now\s+(?:we\s+)?(?:use|uses|using|run|runs"
    r"|is|are|lives?|goes|point|points|listens?|requires?|prefer)|(?:is|are)\s+now\b|new\s+(?:default|value|port"
    r"|path|owner|version|schedule)\b|was\s+moved|has\s+moved|have\s+moved|now\s+on\b)",
    re.I,
)
CHANGE_CUES_ZH = re.compile(
    r"改用|改为|改成|改到|改发|改走|改放|不再|换成|换为|换到|从现在起|从现在开始|今后|以后改|现改|现在改|已改|已经改|已迁移|迁移到|迁到"
    r"|切换到|切换为|替换|取代|弃用|废弃|停用|升级到|升到|降级到|原来的|原先|之前的|以前的|改由|移到|挪到"
)
# Words that name where or when a statement holds: two statements that differ only in
# these are about different situations, not rival answers to one question.
QUALIFIERS = frozenset(
    "dev development local staging stage prod production preview qa test testing tests ci cd "
    "unit integration e2e lite team linux macos mac windows win ios android web mobile desktop "
    "frontend backend server client api cli docs weekend weekends weekday weekdays night nightly "
    "daily weekly monthly friday fridays monday release hotfix main master legacy new old beta "
    "arm x86 amd64 arm64 docker kubernetes k8s browser node python go rust java laptop cloud "
    "开发 本地 测试 预发 生产 线上 线下 正式 灰度 集成 单元 前端 后端 服务 客户 周末 工作 夜间 每天 每周 "
    "发布 热修 主干 旧版 新版".split()
)
QUALIFIERS = QUALIFIERS | frozenset(text.stem(word) for word in QUALIFIERS)  # terms are stemmed
CONDITION_WORDS = re.compile(
    r"\b(?:if|when|whenever|unless|except|only|for|in|on|while|after|before|during|once|where)\b"
    r"|如果|假如|当|除非|除了|只有|仅|只在|在.{1,8}(?:时|中|里|下)|之前|之后|以外",
    re.I,
)
_VALUE = re.compile(r"^(?:v?\d[\w.:-]*|[\w.-]*[/.:][\w./:-]+|\d+(?:ms|s|m|h|d|gb|mb|kb|%)?)$", re.I)


@dataclass(frozen=True)
class Clause:
    text: str
    terms: frozenset[str]
    polarity: int
    alternatives: tuple[str, ...]
    positive: tuple[str, ...]
    negative: tuple[str, ...]


@lru_cache(maxsize=4096)
def clauses(statement: str) -> tuple[Clause, ...]:
    parts = [part.strip() for part in _CLAUSE_BREAK.split(statement) if part and part.strip()]
    found = []
    for part in parts or [statement]:
        analysis = text.analyze(part)
        if analysis.terms:
            found.append(
                Clause(
                    part,
                    analysis.terms,
                    analysis.polarity,
                    analysis.alternatives,
                    analysis.positive,
                    analysis.negative,
                )
            )
    return tuple(found)


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def is_chinese(statement: str) -> bool:
    """Written in Chinese, English names and commands inside or not: two CJK characters
    make about one English word."""
    cjk = len(_CJK.findall(statement))
    return cjk >= 2 and cjk >= len(_LATIN_WORD.findall(statement))


def language(statement: str) -> str:
    """en (no CJK at all), zh (Chinese, names inside or not) or mixed."""
    cjk = len(_CJK.findall(statement))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= 2 * len(_LATIN_WORD.findall(statement)) else "mixed"


_NUMBER = re.compile(r"\d+(?:[.:]\d+)*")


_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|first|second|third|fourth|fifth)\b"
    r"|[一二三四五六七八九十两]",
    re.I,
)


def numbers(statement: str) -> tuple[str, ...]:
    """The numbers a statement gives (versions, ports, times, limits), as written and in
    order ("writer 0, step 1" is not "writer 1, step 0"), then the number words ("two",
    "second", 三)."""
    return tuple(_NUMBER.findall(statement)) + tuple(
        word.casefold() for word in _NUMBER_WORDS.findall(statement)
    )


def change_cue(statement: str) -> str | None:
    match = CHANGE_CUES_EN.search(statement) or CHANGE_CUES_ZH.search(statement)
    return match.group(0).strip() if match else None


_MOVED_TO = re.compile(
    r"\b(?:moved|switched|changed|migrated|upgraded|bumped|ported|went)\s+(?:\w+\s+){0,4}?(?:to|over\s+to)\s+(\S+)"
    r"|(?:改用|改为|改成|改到|换成|换为|换到|迁移到|切换到|升级到)\s*(\S{1,12})",
    re.I,
)


def arrived(statement: str, old_terms: frozenset[str]) -> bool:
    """The change the statement tells of ends where the old statement already is ("moved
    the refresh to Sundays" beside "refreshed every Sunday night"): it agrees with it."""
    for match in _MOVED_TO.finditer(statement):
        target = match.group(1) or match.group(2) or ""
        if text.analyze(target).terms & old_terms:
            return True
    return False


def has_condition(statement: str) -> bool:
    return bool(CONDITION_WORDS.search(statement))


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    shared = len(first & second)
    union = len(first) + len(second) - shared
    return shared / union if union else 0.0


def crossed(new: str, old: str) -> frozenset[str]:
    """Terms one statement negates and the other asserts: "never ship analytics SDKs" and
    "shipping an analytics SDK is fine". A term both negate somewhere ("never a plain pnpm
    install" and "not a bare pnpm install") agrees; a negated detail only one of them names
    ("…, never floats") crosses nothing."""
    sides = []
    for statement in (new, old):
        negated = frozenset().union(*(c.terms for c in clauses(statement) if c.polarity))
        asserted = frozenset().union(*(c.terms for c in clauses(statement) if not c.polarity))
        sides.append((negated, asserted))
    (new_negated, new_asserted), (old_negated, old_asserted) = sides
    return ((new_negated & old_asserted) - old_negated) | (
        (old_negated & new_asserted) - new_negated
    )


def opposition(new: Clause, old: Clause) -> str | None:
    """How two clauses about one claim disagree in polarity, or None."""
    for one, other in text.ALTERNATIVE_PAIRS:
        if (one in new.alternatives and other in old.alternatives) or (
            other in new.alternatives and one in old.alternatives
        ):
            if new.polarity == old.polarity:
                return f"alternatives: {one}/{other}"
    if new.polarity == old.polarity:
        return None
    for positive, negative in text.ANTONYM_PAIRS:
        if (positive in new.positive and negative in old.negative) or (
            positive in old.positive and negative in new.negative
        ):
            return f"antonyms: {positive}/{negative}"
    return "negation"


def term_kind(term: str, statement: str) -> str:
    """value, qualifier or word: what a term that differs between two statements is."""
    if term in QUALIFIERS:
        return "qualifier"
    if _VALUE.match(term) or any(char.isdigit() for char in term):
        return "value"
    if term.isascii() and is_chinese(statement):
        return "value"  # a Latin name inside Chinese text names a tool or a setting
    if term.isascii() and _written_as_name(term, statement):
        return "value"
    return "word"


def _written_as_name(term: str, statement: str) -> bool:
    """Capitalised inside a sentence (Vitest, PostgreSQL) or written as code (`uv`)."""
    for match in re.finditer(r"`[^`]+`|\b[\w.+-]+\b", statement):
        word = match.group(0)
        if word.startswith("`"):
            if term in text.analyze(word.strip("`")).terms:
                return True
            continue
        if text.stem(word.casefold()) != term:
            continue
        before = statement[: match.start()].rstrip()
        starts_sentence = not before or before[-1] in ".!?:;。；！？\n-*#>("
        if (word[0].isupper() and not starts_sentence) or any(c.isupper() for c in word[1:]):
            return True
    return False
