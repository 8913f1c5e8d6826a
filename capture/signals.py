"""Explicit memory signals in English and Chinese: sentence in, proposal (or nothing) out.

Pure functions, no database. Precision beats recall: a sentence is proposed only when an
explicit cue ("remember that", "from now on", "I prefer", "we decided", "never", 请记住,
以后, 我偏好, 我们决定, 不要再 ...) opens it, and it is not a question, a hedge, a quote,
code, or mostly redacted. What is left after the cue is the statement to remember.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REDACTED = re.compile(r"\[REDACTED:[^\]]*\]")
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# A sentence ends at . ! ? followed by space or the end, at Chinese 。！？；, or a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；;])|\n+")
_QUOTES = re.compile(r"\"[^\"]*\"|“[^”]*”|「[^」]*」|『[^』]*』|'[^'\n]{8,}'")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")

MIN_LATIN_WORDS = 3
MIN_CJK_CHARS = 4
MAX_SENTENCE_CHARS = 400

# Openers that carry no meaning before a cue: "OK, so remember ...", "另外，以后 ...".
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|also|and|so|btw|by the way|oh|one more thing|fyi|好的|好|另外|还有|对了|顺便说一下|顺便)"
    r"[\s,，:：、-]*)+",
    re.I,
)
_PLEASE = re.compile(r"^(?:please|pls|kindly|请|麻烦)[\s,，]*", re.I)


@dataclass(frozen=True)
class Cue:
    """One signal: its rule name, the pattern that opens a sentence, the kind it implies
    (None: judge the remaining statement), its base confidence, and whether the cue words
    stay in the statement ("Never push to main" keeps its "Never")."""

    rule: str
    pattern: re.Pattern
    kind: str | None
    confidence: float
    keep_cue: bool = False


def _cue(rule, regex, kind, confidence, keep=False) -> Cue:
    return Cue(rule, re.compile(regex, re.I), kind, confidence, keep)


# Order matters: the first cue that opens the sentence wins.
CUES = (
    _cue(
        "en.remember",
        r"^(?:always\s+)?(?:remember|don'?t forget|do not forget|keep in mind|note)(?:\s+that|\s*[:,-])?\s+(?!when\b|if\b|whether\b|how\b|what\b|why\b|who\b|where\b|me\b|to ask\b)",
        None,
        0.9,
    ),
    _cue(
        "en.from_now_on",
        r"^(?:from now on|going forward|in (?:the )?future|henceforth|from here on(?: out)?)\s*[,:]?\s*",
        None,
        0.8,
    ),
    _cue(
        "en.prefer",
        r"^(?:i(?:'d|\s+would)?\s+(?:really\s+|strongly\s+)?(?:prefer|like\b.*\bbetter than|always use|never use)|my preference is|i want you to)\b",
        "preference",
        0.8,
        True,
    ),
    _cue(
        "en.decided",
        r"^(?:we(?:'ve| have)?\s+(?:decided|agreed|settled on|chose|chosen)|the decision is|it(?:'s| is) decided|let'?s go with)\b",
        "decision",
        0.8,
        True,
    ),
    _cue(
        "en.never",
        r"^(?:don'?t ever|do not ever|never ever|never|don'?t|do not)\b(?!\s+(?:know|think|remember|worry|mind|care)\b)",
        "constraint",
        0.7,
        True,
    ),
    _cue("en.always", r"^always\b", "constraint", 0.7, True),
    _cue(
        "en.assistant_noted",
        r"^(?:(?:got it|understood|noted)[,.!:]?\s+)?(?:i'?ll|i will)\s+(?:remember|keep in mind|note)(?:\s+that)?\s+",
        None,
        0.7,
    ),
    _cue(
        "zh.remember",
        r"^(?:请|麻烦)?(?:记住|记一下|记下|别忘了|不要忘记|牢记)(?:[:：,，、]|一下)?\s*(?!.*(?:吗|么)\s*$)",
        None,
        0.9,
    ),
    _cue("zh.from_now_on", r"^(?:从现在开始|从今以后|从今往后|今后|以后)[,，:：]?\s*", None, 0.8),
    _cue(
        "zh.prefer",
        r"^(?:我(?:更)?(?:偏好|偏向|更喜欢|比较喜欢|喜欢用|倾向于|习惯用|希望))",
        "preference",
        0.8,
        True,
    ),
    _cue(
        "zh.decided",
        r"^(?:我们(?:已经)?(?:决定|商定|定了|确定)|最终决定|决定(?:了)?(?:用|采用|使用))",
        "decision",
        0.8,
        True,
    ),
    _cue(
        "zh.never",
        r"^(?:永远不要|绝对不要|千万不要|千万别|不要再|别再|禁止|不准|不许)",
        "constraint",
        0.75,
        True,
    ),
    _cue("zh.always", r"^(?:一定要|务必|总是|始终|必须)", "constraint", 0.7, True),
    _cue(
        "zh.assistant_noted",
        r"^(?:好的[，,]?\s*)?(?:我会记住|我记住了|已记住|已记下)[:：,，]?\s*",
        None,
        0.7,
    ),
)

# A sentence with one of these is not a statement of fact: questions, doubt, hypotheticals,
# recollection ("do you remember"), reported speech.
_NOT_A_STATEMENT = re.compile(
    r"\b(?:do|did|can|could|would|should|shall|will)\s+(?:you|we|i)\s+(?:remember|recall|prefer|decide|know)\b"
    r"|\b(?:not sure|don'?t know|do not know|no idea|wonder(?:ing)?|whether|maybe|perhaps|might|unless|if)\b"
    r"|\b(?:he|she|they)\s+(?:said|says|told)\b|\bremember when\b|\bi remember\b"
    r"|再说"
    r"|你还记得|还记得吗|记得吗|你记得|不记得|不确定|不知道|是否|也许|可能|如果|假如|要是|他说|她说|他们说",
    re.I,
)
_QUESTION_END = re.compile(r"(?:[?？]|[吗呢么嘛]\s*[。.]?)\s*$")
_TRUNCATED_END = re.compile(r"(?:\.\.\.|…|[,，、:：-])\s*$")
_PROJECTISH = re.compile(
    r"\b(?:this|the|our)\s+(?:repo|repository|project|codebase|code base|service|app|monorepo|package)\b"
    r"|\b(?:in|for)\s+here\b|(?:^|\s)(?:\./|src/|tests?/)|\w+\.(?:py|ts|js|toml|json|ya?ml|md|go|rs)\b"
    r"|这个(?:项目|仓库|库|代码库|服务|应用)|本(?:项目|仓库)|该项目|项目里|仓库里|代码库",
    re.I,
)
_NEGATIVE_CONTENT = re.compile(
    r"^(?:never|don'?t|do not|avoid)\b|^(?:不要|别|不能|禁止|不准|永远不要)", re.I
)
_RULE_WORDS = re.compile(
    r"\b(?:always|never|must|must not|mustn't)\b|一定要|务必|总是|始终|必须|不能|不要|禁止", re.I
)
_PREFERENCE_CONTENT = re.compile(
    r"^(?:(?:i|you)\s+(?:prefer|like|want)|我(?:偏好|更喜欢|喜欢|希望))", re.I
)
_DECISION_CONTENT = re.compile(
    r"^(?:we\s+(?:decided|agreed|use|chose)|我们(?:决定|用|使用|采用))", re.I
)


@dataclass(frozen=True)
class Signal:
    """What one sentence says to remember."""

    content: str
    kind: str
    rule: str
    confidence: float
    sentence: str
    projectish: bool
    truncated: bool


def strip_code(text: str) -> str:
    """Code blocks and inline code are material, not statements: they never feed extraction."""
    return _INLINE_CODE.sub(" ", _FENCE.sub("\n", text))


def sentences(text: str) -> list[str]:
    """Split English, Chinese and mixed text into sentences; quoted lines ("> ...") dropped."""
    lines = [line for line in strip_code(text).splitlines() if not line.lstrip().startswith(">")]
    parts = _SENTENCE_END.split("\n".join(lines))
    return [part.strip() for part in parts if part and part.strip()]


def _mostly_redacted(sentence: str) -> bool:
    # A placeholder stands for a secret: a statement built around one would be a memory of a
    # secret (which the write gate refuses) or a broken fact. Any placeholder disqualifies.
    return bool(REDACTED.search(sentence))


def _long_enough(content: str) -> bool:
    return (
        len(_WORD.findall(content)) >= MIN_LATIN_WORDS
        or len(_CJK.findall(content)) >= MIN_CJK_CHARS
        or (len(_CJK.findall(content)) >= 2 and len(_WORD.findall(content)) >= 1)
    )


def _tidy(content: str) -> str:
    content = _PLEASE.sub("", content.strip()).strip(" ,，:：;；-—")
    content = re.sub(r"\s+", " ", content)
    if content and content[0].isascii() and content[0].isalpha():
        content = content[0].upper() + content[1:]
    return content


def _kind_of(content: str) -> str:
    if _NEGATIVE_CONTENT.search(content) or _RULE_WORDS.search(content):
        return "constraint"
    if _PREFERENCE_CONTENT.search(content):
        return "preference"
    if _DECISION_CONTENT.search(content):
        return "decision"
    return "fact"


def _inside_quotes(sentence: str) -> bool:
    """The whole statement sits inside quotation marks: someone else's words, not the user's."""
    stripped = sentence.strip()
    return any(
        match.start() <= 2 and match.end() >= len(stripped) - 2
        for match in _QUOTES.finditer(stripped)
    )


def signal_in(sentence: str, *, from_assistant: bool = False) -> Signal | None:
    """The signal this sentence carries, or None. Assistant sentences count only when the
    assistant restates a decision, a preference or what it was asked to remember."""
    raw = sentence.strip()
    if not raw or len(raw) > MAX_SENTENCE_CHARS or _mostly_redacted(raw) or _inside_quotes(raw):
        return None
    if _QUESTION_END.search(raw) or _NOT_A_STATEMENT.search(raw):
        return None
    truncated = bool(_TRUNCATED_END.search(raw))
    text = _FILLER.sub("", raw).strip()
    text = _PLEASE.sub("", text).strip()
    for cue in CUES:
        if from_assistant and cue.rule.endswith((".never", ".always", ".from_now_on", ".remember")):
            continue  # an assistant's "never ..." is advice, not the owner's rule
        if not from_assistant and cue.rule.endswith(".assistant_noted"):
            continue
        match = cue.pattern.match(text)
        if match is None:
            continue
        rest = text if cue.keep_cue else text[match.end() :]
        content = _tidy(rest.rstrip("。.!！；;"))
        if not content or not _long_enough(content) or content.endswith(("?", "？")):
            return None
        kind = cue.kind or _kind_of(content)
        if cue.rule.endswith(".from_now_on") and kind == "fact":
            kind = "preference"  # "from now on, X" is how the owner wants things done
        return Signal(
            content=content, kind=kind, rule=cue.rule, confidence=cue.confidence, sentence=raw,
            projectish=bool(_PROJECTISH.search(content)), truncated=truncated,
        )  # fmt: skip
    return None


def signals_in(text: str, *, from_assistant: bool = False) -> list[Signal]:
    return [
        found
        for sentence in sentences(text)
        if (found := signal_in(sentence, from_assistant=from_assistant))
    ]
