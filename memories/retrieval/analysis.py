"""How text becomes search terms, the same way for memories and for queries, on both backends.

Latin words are lowercased, lightly stemmed and stripped of stopwords; Chinese (and other
CJK) runs become overlapping character bigrams, which is how two-character words like 缓存,
分支 or 镜像 become exact index terms without a dictionary. The database indexes these terms
as given (SQLite FTS5 with the unicode61 tokenizer over space-separated terms; PostgreSQL
tsvectors built from the term array), so both backends match the same things.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

from memories import text

# Query words that say how a question is asked, not what it is about.
QUESTION_WORDS = frozenset(
    "what which who whom whose why how when where do does did should would could can "
    "need needs know tell remember recall find show give get got any anything something "
    "everything there ok okay again use using used want wanted look looks put else left "
    "come comes new make makes fix keep set known last once whats thing things way ways "
    "supposed allowed able sure right correct wrong good best better still ever actually "
    "just really mean means okay yes no on off".split()
)
# CJK function words: a bigram made only of these carries no topic (的时, 了吗).
CJK_FUNCTION_CHARS = frozenset(
    "的了吗呢吧啊是在和与及或把被给对从向到也都就还又很最么什怎哪谁我你他她它们这那个些有没要会能该多少几"
)
# How a Chinese question is asked, not what it is about (哪里, 怎么, 放在哪 "where is ... kept").
CJK_QUESTION_WORDS = frozenset(
    "哪里 哪儿 哪个 哪些 哪家 什么 怎么 怎样 如何 为何 是否 能否 可否 可以 需要 应该 一下 请问 "
    "告诉 放在 存在 位于 用的 是啥 干嘛 多少 多久".split()
)
# Particles that end a phrase: a bigram holding one spans a word boundary (型的, 了吗).
CJK_PARTICLES = frozenset("的了吗呢吧啊么")


def _latin_term(word: str) -> str | None:
    word = word.replace("’", "'").removesuffix("'s").replace("'", "")  # isn't → isnt
    if word in text.STOPWORDS or (len(word) < 2 and not word.isdigit()):
        return None
    return text.stem(word)


@functools.lru_cache(maxsize=4096)
def index_terms(content: str) -> tuple[str, ...]:
    """Distinct terms of a stored text, in first-seen order."""
    seen: dict[str, None] = {}
    for token in text.tokens(content):
        if text.is_cjk(token):
            if len(token) == 1:
                seen.setdefault(token)
            for i in range(len(token) - 1):
                seen.setdefault(token[i : i + 2])
        else:
            for part in token.split("-"):
                term = _latin_term(part)
                if term:
                    seen.setdefault(term)
    return tuple(seen)


@functools.lru_cache(maxsize=4096)
def query_terms(query: str) -> tuple[str, ...]:
    """Terms of a query: index terms minus question scaffolding ("how do I ...", 怎么).
    CJK bigrams made only of function characters, holding a particle, or naming the
    question itself are dropped; other bigrams spanning a word boundary stay (they simply
    match nothing, and recall's coverage measure discounts them)."""
    kept = []
    for term in index_terms(query):
        if text.is_cjk(term):
            if all(char in CJK_FUNCTION_CHARS for char in term):
                continue
            if len(term) == 2 and any(char in CJK_PARTICLES for char in term):
                continue
            if term in CJK_QUESTION_WORDS:
                continue
        elif term in QUESTION_WORDS:
            continue
        kept.append(term)
    return tuple(kept)


def scope_token(owner_id: int, scope_type: str, scope_key: str, visibility: str) -> str:
    """One index token naming a memory's owner, scope and visibility, so the full-text
    engine itself intersects a query with the caller's scopes (SQLite)."""
    digest = hashlib.sha1(scope_key.encode()).hexdigest()[:12] if scope_key else "0"
    return f"o{owner_id}{scope_type[0]}{digest}{visibility[0]}"


def kind_token(kind: str) -> str:
    return "k" + kind.replace("_", "")


def document_fields(memory) -> dict[str, str]:
    """The derived search columns of a memory row (see Memory.save)."""
    aux_parts = [*memory.tags, *memory.retrieval_hints]
    if memory.key:
        aux_parts.append(memory.key)
    return {
        "search_body": " ".join(index_terms(memory.content)),
        "search_aux": " ".join(index_terms(" \n".join(aux_parts))) if aux_parts else "",
        "search_scope": " ".join(
            (
                scope_token(
                    memory.owner_id, memory.scope_type, memory.scope_key, memory.visibility
                ),
                kind_token(memory.kind),
            )
        ),
    }


_RAW_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*[A-Za-z0-9+#]|[A-Za-z]")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？]\s*)$")


@functools.lru_cache(maxsize=4096)
def named_terms(query: str) -> tuple[str, ...]:
    """Terms of the words a query uses as names: acronyms (SLA, VPN), capitalised words
    that do not start a sentence (Kafka, Terraform), and any latin word inside a Chinese
    question (Storybook 发布在哪里). A name the store has never seen means the question is
    about something nobody wrote down."""
    query = unicodedata.normalize("NFKC", query)
    has_cjk = any(text.is_cjk(char) for char in query)
    names = []
    for match in _RAW_WORD.finditer(query):
        word = match.group()
        starts_sentence = bool(_SENTENCE_START.search(query[: match.start()]))
        is_acronym = len(word) >= 2 and sum(char.isupper() for char in word) >= 2
        is_name = (word[0].isupper() and not starts_sentence) or is_acronym or has_cjk
        if not is_name:
            continue
        for term in index_terms(word):
            if term not in QUESTION_WORDS:
                names.append(term)
    return tuple(dict.fromkeys(names))
