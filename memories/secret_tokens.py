"""An unlabelled machine-made token next to a credential word, before it ("the signing key
for prod is …", 令牌 …) or after it on its line ("… that's the fresh Okta key"), unless the
words around it say it is a database key, a public key, a checksum, a commit or an id."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from memories.secret_rules import _is_placeholder

_CREDENTIAL_WORD = (
    r"(?:(?<![A-Za-z0-9])(?i:api[ _-]?keys?|access[ _-]?keys?|secret(?:[ _-]?key)?s?|tokens?"
    r"|passwords?|passwd|pwd|passphrase|credentials?|creds|auth|keys?|signing[ _-]?key)"
    r"|(?<=[a-z0-9])(?:Token|Key|Secret|Password|Pwd|Passwd|Credential)"
    r"|密钥|秘钥|令牌|密码|口令|凭证|凭据|私钥|访问码)"
)
# Tokens are rarer than words: find each long token, then look for the word before it.
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_.~-])[A-Za-z0-9][A-Za-z0-9+/_.~-]{19,}={0,2}")
_WORD_BEFORE = re.compile(r"(?P<word>" + _CREDENTIAL_WORD + r")[^\n.;。；!?]{0,40}$")
_WORD_AFTER = re.compile(r"^[^\n.;。；!]{0,40}?" + _CREDENTIAL_WORD)
# Words that make "key" or "token" something else: a database key, a public key, a checksum.
_NOT_A_CREDENTIAL = re.compile(
    r"(?i:idempoten|primary|foreign|cache|sort|partition|public|\bpub\b|object|bucket|lookup"
    r"|dedup|composite|shard|routing|row|sha-?\d|md5|checksum|digest|hash|fingerprint|commit"
    r"|page|cursor|ssh-|ecdsa|request|trace|correlation|order|uuid|max_|limit|(?<![a-z])count|budget"
    r"|\bnot an? (?:secret|key|token|password|credential))"
    r"|公钥|主键|幂等|校验|哈希|摘要|指纹|游标|不是(?:密钥|密码|令牌|秘钥)"
)


_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_CAMEL = re.compile(r"[A-Z]?[a-z]{3,}")
_WORDISH = re.compile(r"[A-Z]?[a-z]{4,}|[A-Z]{5,}")


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def machine_made(value: str) -> bool:
    """A random credential: long, mixed classes, letters and digits interleaved, high
    entropy. Identifiers (`django.contrib.auth`), file names and version strings fail."""
    value = value.rstrip(".~-_")
    if len(value) < 20 or _is_placeholder(value):
        return False
    lower, upper, digit = (
        any(test(c) for c in value) for test in (str.islower, str.isupper, str.isdigit)
    )
    hexadecimal = _HEX.fullmatch(value) is not None
    wordish = sum(map(len, _WORDISH.findall(value))) / len(value)
    if hexadecimal:  # 16 symbols: fewer distinct characters and less entropy per character
        shaped = digit and (lower or upper) and len(set(value)) >= 9 and _entropy(value) >= 3.0
    else:
        camel = sum(map(len, _CAMEL.findall(value))) / len(value)
        shaped = (digit and (lower or upper) and wordish < 0.6) or (lower and upper and camel < 0.3)
        shaped = shaped and len(set(value)) >= 12 and _entropy(value) >= 3.5
    if not shaped:
        return False
    kinds = [c.isdigit() and "d" or c.isupper() and "u" or c.islower() and "l" or "" for c in value]
    changes = sum(1 for a, b in zip(kinds, kinds[1:], strict=False) if a and b and a != b)
    return changes >= 0.25 * len(value)


def labelled_token(text: str) -> Iterator[tuple[int, int]]:
    for token in _LONG_TOKEN.finditer(text):
        if not machine_made(token[0]):
            continue
        end = token.start() + len(token[0].rstrip(".~-_"))
        word = _WORD_BEFORE.search(text, max(0, token.start() - 64), token.start())
        if word is not None:
            context = text[max(0, word.start() - 24) : token.start()]
        elif _HEX.fullmatch(token[0]) is None:
            # "…? that's the fresh Okta key", "<token> 就是 Vercel 的 API 密钥": the word after
            # it, on its line (a hex run there is more often a commit or a checksum)
            line_end = text.find("\n", end, end + 48)
            context = text[end : end + 48 if line_end == -1 else line_end]
            word = _WORD_AFTER.search(context)
        if word is not None and not _NOT_A_CREDENTIAL.search(context):
            yield token.start(), end
