"""Credential shapes beyond the labelled ones in memories.secret_rules: provider key
families, private key bodies without their header, personal numbers however they are split,
and an unlabelled machine-made token next to a credential word. `SECRET_RULES` is the whole
table, in the order that names a finding when two rules report the same span.

All rules read normalised text (memories.secret_text): NFKC, no invisible characters, ASCII
look-alikes folded, so full-width digits and a Cyrillic "а" in a prefix are plain ASCII here.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from memories.identifiers import card_number_valid, card_shaped, iban_spans, prc_id_valid
from memories.secret_phrasings import PHRASING_RULES
from memories.secret_rules import (
    BASE_RULES,
    SecretFinding,
    SecretRule,
    _group_is_random,
)
from memories.secret_tokens import labelled_token


@dataclass(frozen=True)
class FinderRule:
    """A shape a regular expression alone cannot say: `find` yields (start, end) spans."""

    name: str
    find: Callable[[str], Iterator[tuple[int, int]]]
    hints: tuple[str, ...] = ()

    def findings(self, text: str, lowered: str | None = None) -> Iterator[SecretFinding]:
        for start, end in self.find(text):
            yield SecretFinding(self.name, start, end)


_EDGE = r"(?<![A-Za-z0-9_-])"
_END = r"(?![A-Za-z0-9_-])"


def _token(name: str, hints: str, pattern: str, min_random: int = 16, flags: int = 0) -> SecretRule:
    """A provider token: a fixed prefix (one of `hints`, lower case), then a random `body`."""
    validate = _group_is_random("body", min_random)
    return SecretRule(name, re.compile(pattern, flags), validate, tuple(hints.split()))


def _discord_bot_id(match: re.Match[str]) -> bool:
    """The first part of a Discord bot token is the bot's numeric id in base64."""
    part = match["id"]
    try:
        decoded = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return decoded.isdigit() and 17 <= len(decoded) <= 20


def _twilio_pair(match: re.Match[str]) -> bool:
    return match["token"] is None or len(set(match["token"])) >= 8


PROVIDER_RULES: tuple[SecretRule, ...] = (
    _token("google_api_key", "aiza", _EDGE + r"AIza(?P<body>[0-9A-Za-z_-]{35})" + _END, 20),
    _token(
        "jwt",
        "eyj",
        _EDGE + r"eyJ[A-Za-z0-9_-]{8,}\.(?P<body>eyJ[A-Za-z0-9_-]{8,})(?:\.[\w-]*)?",
        8,
    ),
    _token("webhook_secret", "whsec_", _EDGE + r"whsec_(?P<body>[A-Za-z0-9+/=]{24,})", 20),
    _token(
        "webhook_secret",
        "hooks.slack.com discord webhook.office.com feishu larksuite dingtalk qyapi",
        r"https?://(?:hooks\.slack\.com/(?:services|workflows|triggers)/|(?:ptb\.|canary\.)?"
        r"discord(?:app)?\.com/api/webhooks/\d+/|[\w.-]*webhook\.office\.com/webhookb2/"
        r"|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/"
        r"|oapi\.dingtalk\.com/robot/send\?access_token=|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=)"
        r"(?P<body>[A-Za-z0-9/_@.-]{16,})",
        12,
    ),
    SecretRule(
        # A Sentry DSN's key: https://<32 hex>@o123.ingest.sentry.io/456
        "sentry_dsn_key",
        re.compile(
            r"https?://(?P<secret>[0-9a-f]{32}(?::[0-9a-f]{32})?)@[\w.-]*sentry[\w.-]*(?::\d+)?/\d+",
            re.IGNORECASE,
        ),
        hints=("sentry",),
    ),
    _token(
        "huggingface_token",
        "hf_ api_org_",
        _EDGE + r"(?:hf_|api_org_)(?P<body>[A-Za-z0-9]{30,})" + _END,
        20,
    ),
    _token(
        "gitlab_token",
        "glpat- gldt- glrt- glptt- glft- glsoat- gloas- glcbt- glimt- glagent-",
        _EDGE + r"gl(?:pat|dt|rt|ptt|ft|soat|oas|cbt|imt|agent)-(?P<body>[A-Za-z0-9_-]{20,})",
        16,
    ),
    _token("sendgrid_key", "sg.", _EDGE + r"SG\.(?P<body>[\w-]{16,32}\.[\w-]{30,64})" + _END, 30),
    _token(
        "azure_key",
        "accountkey sharedaccess sig",
        r"(?:AccountKey|SharedAccessKey|SharedAccessSignature|[?&]sig)\s*=\s*"
        r"(?P<body>[A-Za-z0-9+/%]{20,}={0,2})",
        20,
        re.IGNORECASE,
    ),
    SecretRule(
        # An API key SID (SK...) alone, or an account SID with the auth token after it.
        "twilio_key",
        re.compile(
            r"(?<![A-Za-z0-9])(?:SK[0-9a-fA-F]{32}|AC[0-9a-f]{32}(?:[^\n]{1,60}?(?<![0-9a-f])"
            r"(?P<token>[0-9a-f]{32}))?)(?![0-9a-fA-F])"
        ),
        lambda match: match[0].startswith("SK") or match["token"] is not None,
        ("sk", "ac"),
    ),
    _token(
        "provider_token",
        "npm_ pypi-ageichlwas5vcmc dop_v1_ doo_v1_ shpat_ shpss_ shpca_ shppa_ hvs. hvb. gocspx- dapi "
        "sq0csp- sq0atp- eaac lin_api_ pat atatt3 xkeysib- key- dckr_ nfp_ nfc_ nfo_ nfb_ nfu_ ntn_ "
        "hrku-",
        _EDGE + r"(?:npm_|pypi-AgEIcHlwaS5vcmc|dop_v1_|doo_v1_|shp(?:at|ss|ca|pa)_|hvs\.|hvb\."
        r"|GOCSPX-|dapi|sq0csp-|sq0atp-|EAAC|lin_api_|pat[A-Za-z0-9]{14}\.|ATATT3|xkeysib-"
        r"|key-(?=[0-9a-f]{32})|dckr_pat_|dckr_oat_|nf[pcobu]_|ntn_|HRKU-)(?P<body>[A-Za-z0-9_=-]{24,})",
        20,
    ),
    _token(
        "telegram_bot_token", ":aa", r"(?<![0-9])[0-9]{8,10}:(?P<body>AA[A-Za-z0-9_-]{33})" + _END
    ),
    SecretRule(
        "azure_client_secret",  # Microsoft Entra: three characters, a digit, "Q~", the rest
        re.compile(_EDGE + r"[A-Za-z0-9_.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}" + _END),
        hints=("q~",),
    ),
    SecretRule(
        "discord_bot_token",
        re.compile(
            _EDGE
            + r"(?P<id>[MNO][A-Za-z0-9_-]{23,27})\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"
            + _END
        ),
        _discord_bot_id,
    ),
    SecretRule(
        # A DER private key in base64 without its PEM armour: PKCS#1 RSA, PKCS#8, SEC1 EC,
        # and the OpenSSH format ("openssh-key-v1").
        "private_key_block",
        re.compile(
            r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}(?:IBAAK|IBADAN)|MHcCAQEE|MC4CAQAwBQYDK2Vw"
            r"|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=\r\n]{40,}"
        ),
        hints=("mii", "mhccaqee", "mc4caqaw", "b3blbnnzac1"),
    ),
)


# --- personal numbers, however they are printed -------------------------------------------

_GROUP = re.compile(r"[0-9]+(?:[Xx](?![A-Za-z0-9]))?")
_PLAIN_GAP = re.compile(r"[ .\-/_·*]{1,3}")
# A few words or characters between digit groups ("4111 1111 then 1111 1111", "卡号 ... 空格 ...").
_WORD_GAP = re.compile(
    r"[ .\-/_,:]{1,3}[A-Za-z]{1,10}[ .\-/_,:]{1,3}|[ .\-/_,:]{0,3}[\u4e00-\u9fff]{1,4}[ .\-/_,:]{0,3}"
)
_LETTER = re.compile(r"[A-Za-z]")
_GAP = r"(?:" + _PLAIN_GAP.pattern + "|" + _WORD_GAP.pattern + ")"
_DIGIT_RUN = re.compile(r"[0-9]+(?:" + _GAP + r"[0-9]+)*[Xx]?")
_NOT_DIGIT = re.compile(r"[^0-9]")


@dataclass(frozen=True)
class _Group:
    start: int
    end: int
    digits: str
    attached: bool  # touches an ASCII letter ("v1234", hex strings)


def _segments(text: str, offset: int = 0) -> Iterator[list[tuple[list[_Group], str]]]:
    """Chains of digit groups: each a list of segments (groups joined by plain separators),
    each segment paired with the kind of gap before it ("" for the first)."""
    chain: list[tuple[list[_Group], str]] = []
    previous: _Group | None = None
    for match in _GROUP.finditer(text):
        start, end = match.span()
        before = text[start - 1 : start]
        after = text[end : end + 1]
        attached = bool(_LETTER.match(before) or _LETTER.match(after))
        group = _Group(offset + start, offset + end, match[0], attached)
        if previous is not None and "X" not in previous.digits.upper():
            gap = text[previous.end - offset : start]
            if _PLAIN_GAP.fullmatch(gap):
                chain[-1][0].append(group)
                previous = group
                continue
            if len(gap) <= 16 and _WORD_GAP.fullmatch(gap):
                chain.append(([group], "word"))
                previous = group
                continue
        if chain:
            yield chain
        chain = [([group], "")]
        previous = group
    if chain:
        yield chain


def _chains(text: str) -> Iterator[list[tuple[list[_Group], str]]]:
    """Only runs of 13 digits or more can hold a card or an ID number; the regular
    expression finds those runs, the rest of the text is never looked at in Python."""
    for match in _DIGIT_RUN.finditer(text):
        run = match[0]
        if len(run) < 13 or len(_NOT_DIGIT.sub("", run)) < 13:
            continue
        start = max(0, match.start() - 1)
        yield from _segments(text[start : match.end() + 1], start)


def _candidates(text: str) -> Iterator[list[_Group]]:
    """Group runs that could be one number, each of 19 digits or fewer: a segment (or the
    rest of one, from a group whose size differs from the one before: "ref 12 4111 ..."),
    a prefix of that when it is not itself shaped like a card (a stray group rides along:
    "4111 1111 1111 1111 12 pcs"), or short segments split by words. Bounded, so a long
    table of numbers costs time linear in its length."""
    for chain in _chains(text):
        for index, (groups, _) in enumerate(chain):
            sizes = [len(group.digits) for group in groups]
            for first in range(len(groups)):
                if first and sizes[first] == sizes[first - 1]:
                    continue
                total, end = 0, first
                while end < len(groups) and total + sizes[end] <= 19:
                    total += sizes[end]
                    end += 1
                whole = end == len(groups)
                if whole:
                    yield groups[first:]
                digits = "".join(group.digits for group in groups[first:end])
                if not (whole and card_shaped(digits)):  # a wrong card is not a right one + digits
                    for stop in range(end - (1 if whole else 0), first, -1):
                        yield groups[first:stop]
            joined = list(groups)
            for later, _gap in chain[index + 1 : index + 6]:
                if sum(sizes) > 12 or sum(len(g.digits) for g in later) > 12:
                    break
                joined = joined + later
                yield joined


def _grouped_like_a_card(sizes: list[int]) -> bool:
    if len(sizes) == 1:
        return True
    if sizes[:2] == [4, 6]:  # American Express and Diners Club: 4-6-5, 4-6-4
        return len(sizes) == 3
    return sizes[0] >= 3 and all(size == sizes[0] for size in sizes[:-1]) and sizes[-1] <= sizes[0]


def _numbers(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(card spans, ID spans); both rules read one pass over the digit runs."""
    cards: list[tuple[int, int]] = []
    ids: list[tuple[int, int]] = []
    for groups in _candidates(text):
        digits = "".join(group.digits for group in groups)
        span = (groups[0].start, groups[-1].end)
        if len(groups) > 1 and (groups[0].attached or groups[-1].attached):
            continue
        if len(digits) == 18 and not groups[0].attached and prc_id_valid(digits.upper()):
            ids.append(span)
        sizes = [len(group.digits) for group in groups]
        if (
            13 <= len(digits) <= 19
            and digits.isdigit()
            and _grouped_like_a_card(sizes)
            and card_number_valid(digits)
        ):
            cards.append(span)
    return list(dict.fromkeys(cards)), list(dict.fromkeys(ids))


_last_numbers: list = [None, ([], [])]  # the text read last, and its spans


def _number_spans(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    if _last_numbers[0] is not text:
        _last_numbers[:] = [text, _numbers(text)]
    return _last_numbers[1]


def _cards(text: str) -> Iterator[tuple[int, int]]:
    # digits glued to Latin letters are a code (a parcel's SF4543268477945), not a card
    for start, end in _number_spans(text)[0]:
        before, after = text[start - 1 : start], text[end : end + 1]
        if not (before.isascii() and before.isalpha() or after.isascii() and after.isalpha()):
            yield start, end


def _prc_ids(text: str) -> Iterator[tuple[int, int]]:
    return iter(_number_spans(text)[1])


_BASE_HINTS = {
    "private_key_block": ("-----begin",), "continuity_token": ("cont_pat_",),
    "authorization_header": ("authorization",), "cookie_header": ("cookie",),
    "api_key": ("sk-", "sk_", "rk_"), "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "slack_token": ("xox", "xapp-"), "aws_access_key": ("akia", "asia", "abia", "acca"),
    "aws_secret_key": ("aws",), "bearer_token": ("bearer",), "url_credentials": ("://",),
    "password_assignment": ("pass", "pwd", "密码", "密碼", "口令"),
    "secret_assignment": ("key", "secret", "token"),
}  # fmt: skip
_CREDENTIAL_HINTS = ("key", "token", "secret", "pass", "pwd", "cred", "auth", "密钥", "秘钥", "令牌",
                     "密码", "口令", "凭证", "凭据", "私钥", "访问码")  # fmt: skip
_HINTED_BASE = tuple(replace(rule, hints=_BASE_HINTS.get(rule.name, ())) for rule in BASE_RULES)
NUMBER_RULES = (
    FinderRule("prc_id_number", _prc_ids),
    FinderRule("card_number", _cards),
    FinderRule("iban", iban_spans),
)
SECRET_RULES: tuple[SecretRule | FinderRule, ...] = (
    _HINTED_BASE[:10] + PROVIDER_RULES + _HINTED_BASE[10:] + PHRASING_RULES
    + (FinderRule("labelled_token", labelled_token, _CREDENTIAL_HINTS),) + NUMBER_RULES
)  # fmt: skip
RULE_NAMES = tuple(dict.fromkeys(rule.name for rule in SECRET_RULES))
