"""What a labelled credential looks like: the first part of the rule table the write gate
(memories.gates) and capture's redaction share, so one definition says what never enters
the store. memories.secret_shapes adds the provider families, personal numbers and
unlabelled tokens, and assembles the whole table (`SECRET_RULES`).

Every rule favours catching a real credential over tolerating an odd phrasing, but values
that are evidently not secrets pass: placeholders (`<password>`, `***`, `xxx`, `changeme`),
references to where a secret lives (`${DB_PASSWORD}`, `$TOKEN`, `os.environ[...]`,
`{{ token }}`), file paths, and prose ("the password field must be hashed").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretFinding:
    rule: str
    start: int
    end: int


@dataclass(frozen=True)
class SecretRule:
    """A credential shape. When the pattern has a `secret` group, only that span is reported
    (so redaction keeps "DB_PASSWORD=" readable); `validate` weeds out look-alikes."""

    name: str
    pattern: re.Pattern[str]
    validate: Callable[[re.Match[str]], bool] | None = None
    # Lower-case strings one of which every match contains: text with none skips the rule.
    hints: tuple[str, ...] = ()
    # Every match lies on one line that holds a hint: only those lines are searched.
    line_scoped: bool = False

    def findings(self, text: str, lowered: str | None = None) -> Iterator[SecretFinding]:
        """`lowered` is text.lower(), when the caller has it already."""
        has_secret_group = "secret" in self.pattern.groupindex
        for start, end in self._regions(text, lowered):
            for match in self.pattern.finditer(text, start, end):
                if self.validate is None or self.validate(match):
                    found = match.span("secret") if has_secret_group else match.span()
                    yield SecretFinding(self.name, *found)

    def _regions(self, text: str, lowered: str | None) -> list[tuple[int, int]]:
        if not (self.line_scoped and self.hints):
            return [(0, len(text))]
        lowered = text.lower() if lowered is None else lowered
        if len(lowered) != len(text):
            return [(0, len(text))]
        lines = set()
        for hint in self.hints:
            at = lowered.find(hint)
            while at != -1:
                line_end = text.find("\n", at)
                line_end = len(text) if line_end == -1 else line_end
                lines.add((text.rfind("\n", 0, at) + 1, line_end))
                at = lowered.find(hint, line_end)
        return sorted(lines)


# --- what a secret value looks like -------------------------------------------------------

_PLACEHOLDER_WORDS = frozenset(
    "password passwd passphrase pwd pass secret token changeme change_me change-me example "
    "placeholder redacted hidden masked none null nil undefined empty unset required optional "
    "string str hashed encrypted dummy sample todo tbd fixme your_password yourpassword".split()
)
# Where a secret *lives* rather than the secret: shell/env expansion, templates, code paths.
_REFERENCE = re.compile(
    r"""^(?:[$%<{\[(`*]|os\.|process\.env|env\(|getenv|settings\.|config\.|self\.|request\."""
    r"""|![A-Za-z][A-Za-z_.-]*$)""",  # a YAML tag that looks the value up: !vault, !secret
    re.IGNORECASE,
)
_MASK_CHARS = frozenset("x*.#-_•…?")
_PATH = re.compile(r"^(?:~?/|\.\.?/|[A-Za-z]:\\)")
_CODE_CALL = re.compile(r"^[A-Za-z_][\w.]*\(")  # pwd = Path.cwd(), password = getpass()
# Words that follow "password:" in documentation and configuration prose.
_PROSE_WORDS = frozenset(
    "required optional hashed encrypted salted stored hidden masked redacted reset rotated "
    "expired invalid missing needed mandatory disabled enabled files compat".split()
)


def _unquote(value: str) -> str:
    return value.strip().strip("\"'“”‘’`「」『』").strip()


def _is_placeholder(value: str) -> bool:
    value = _unquote(value)
    lowered = value.lower()
    return (
        not value
        or lowered in _PLACEHOLDER_WORDS
        or bool(_REFERENCE.match(value))
        or set(lowered) <= _MASK_CHARS
        or "example" in lowered
        or lowered.startswith(("your", "<", "xxx"))
    )


def _looks_random(value: str, min_length: int) -> bool:
    """Machine-made credentials mix character classes and repeat few characters."""
    value = _unquote(value)
    if len(value) < min_length or _is_placeholder(value):
        return False
    classes = (str.islower, str.isupper, str.isdigit)
    mixed = sum(any(test(c) for c in value) for test in classes) >= 2
    return mixed and len(set(value)) >= min(10, len(value) // 2)


# --- values the vendors publish ----------------------------------------------------------

# Example credentials printed in vendors' documentation: nobody's secret when the text says
# it is the example ("the AWS docs use AKIAIOSFODNN7EXAMPLE", 测试卡号 4111 1111 1111 1111（示例）).
# Written as if real ("the deploy key is AKIAIOSFODNN7EXAMPLE"), they are still refused.
_PUBLISHED = frozenset(
    "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY 4242424242424242 "
    "4111111111111111 4000056655665556 4012888888881881 5555555555554444 5105105105105100 "
    "2223003122003222 378282246310005 371449635398431 6011111111111117 3566002020360505 "
    "30569309025904 6200000000000005".split()
)
# jwt.io's sample token ({"sub": "1234567890", "name": "John Doe", ...}), whole or cut short.
_PUBLISHED_PREFIXES = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZ",)
_EXAMPLE_WORDS = re.compile(
    r"(?i:\b(?:examples?|samples?|documented|documentation|docs?|placeholder|dummy)\b"
    r"|\btest(?:ing)? (?:card|mode|number|key)s?\b)|示例|样例|范例|文档|测试卡|测试用"
)
_SEPARATORS = re.compile(r"[\s.-]")


def published_example(text: str, start: int, end: int) -> bool:
    """The finding text[start:end] is a vendor's documented example, called one on its line."""
    value = text[start:end]
    if _SEPARATORS.sub("", value) not in _PUBLISHED and not value.startswith(_PUBLISHED_PREFIXES):
        return False
    line_end = text.find("\n", end)
    around = (
        text[text.rfind("\n", 0, start) + 1 : start]
        + " "
        + text[end : len(text) if line_end == -1 else line_end]
    )
    return _EXAMPLE_WORDS.search(around) is not None


# --- validators ---------------------------------------------------------------------------


def _group_is_random(group: str, min_length: int) -> Callable[[re.Match[str]], bool]:
    return lambda match: _looks_random(match[group], min_length)


def _authorization_is_credential(match: re.Match[str]) -> bool:
    # "Authorization: Bearer abc12345" is a credential; "Authorization: required" is prose.
    return _looks_random(match["value"], 8 if match["scheme"] else 16)


_COOKIE_ATTRIBUTES = frozenset(
    "path domain expires max-age samesite secure httponly partitioned priority name".split()
)


def _cookie_is_set(match: re.Match[str]) -> bool:
    # Cookie values are often short ("a=b"), so only attributes and placeholders are excused.
    return match["name"].lower() not in _COOKIE_ATTRIBUTES and not _is_placeholder(match["value"])


def _key_block_has_body(match: re.Match[str]) -> bool:
    # A header quoted in prose ("never commit -----BEGIN ... PRIVATE KEY----- files") passes.
    return re.search(r"[A-Za-z0-9+/]{16,}", match["body"]) is not None


def _password_is_plausible(match: re.Match[str]) -> bool:
    raw = match["secret"]
    value = _unquote(raw).rstrip(".!?:)")  # sentence punctuation after a bare word
    if len(value.replace(" ", "")) < 6 or _is_placeholder(value) or _PATH.match(value):
        return False
    if raw[0] in "\"'“‘「『":
        return True
    if _CODE_CALL.match(value):
        return False
    if not value.isalpha():
        return True
    # A bare word: "password: letmein" is a secret, "the password is stored in..." is not.
    operator = match["operator"] or match["flag"] or match["cjk_operator"] or ""
    if value.lower() in _PROSE_WORDS or operator.strip().lower() == "is":
        return False
    rest = match.string[match.end("secret") :].lstrip(" \t")[:1]
    return not (rest.isascii() and rest.isalpha())


def _url_password_is_real(match: re.Match[str]) -> bool:
    # Local defaults such as postgres://postgres:postgres@localhost are not secrets.
    password = match["secret"]
    return (
        len(password) >= 6
        and password != match["user"]
        and password.lower() not in {"postgres", "password", "secret", "guest", "admin", "root"}
        and not _is_placeholder(password)
    )


# --- the rules ----------------------------------------------------------------------------

_QUOTED = (
    r""""[^"\n]{1,200}"|'[^'\n]{1,200}'|“[^”\n]{1,200}”|「[^」\n]{1,200}」|『[^』\n]{1,200}』"""
)
_QUOTED_OR_BARE = rf"""(?:{_QUOTED}|(?:(?!["',;])[!-~])+)"""
_OPERATOR = r"""["']?\s*(?::=|=>|[=:：])\s*"""
_I = re.IGNORECASE

BASE_RULES: tuple[SecretRule, ...] = (
    # Specific shapes first: when two rules report the same span, the earlier one names it.
    SecretRule(
        # The search for the END line stops at the next BEGIN, so text full of unterminated
        # headers stays linear.
        "private_key_block",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?P<body>(?:(?!-----BEGIN)[\s\S])*?"
            r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,-]*)"
        ),
        _key_block_has_body,
    ),
    SecretRule(
        # Our own PATs (accounts.tokens.TOKEN_MARKER), also inside URLs and words; a
        # truncated token still leaks most of its secret, hence 16+ rather than exactly 40.
        "continuity_token",
        re.compile(r"(?P<secret>cont_pat_(?P<body>[A-Za-z0-9_-]{16,}))"),
        _group_is_random("body", 16),
    ),
    SecretRule(
        "authorization_header",
        re.compile(
            r"(?<![a-z0-9-])(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?P<secret>(?:(?P<scheme>"
            r"bearer|basic|token|digest|negotiate|ntlm|apikey|aws4-hmac-sha256)\s+)?"
            r"(?P<value>[A-Za-z0-9._~+/=:-]{8,}))",
            _I,
        ),
        _authorization_is_credential,
    ),
    SecretRule(
        "cookie_header",
        re.compile(
            r"(?<![a-z0-9-])(?:set-)?cookie[\"']?\s*:\s*[\"']?(?P<secret>"
            r"(?P<name>[A-Za-z0-9_.!#$%&*+^|~-]+)=(?P<value>[^\s;,\"']+)"
            r"(?:;\s*[A-Za-z0-9_.!#$%&*+^|~-]+=[^\s;,\"']*)*)",
            _I,
        ),
        _cookie_is_set,
    ),
    SecretRule(
        # OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-api03-), Stripe (sk_live_).
        # The lookbehind keeps "task-" and "desk-" out.
        "api_key",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?P<secret>(?:sk-(?:proj-|ant-(?:api|admin)\d\d-|svcacct-|admin-)?"
            r"|[sr]k_(?:live|test)_)(?P<body>[A-Za-z0-9_-]{20,}))"
        ),
        _group_is_random("body", 20),
    ),
    SecretRule(
        "github_token",
        re.compile(r"(?<!\w)(?P<secret>(?:gh[pousr]_|github_pat_)(?P<body>\w{30,}))", re.A),
        _group_is_random("body", 30),
    ),
    SecretRule(
        "slack_token",
        re.compile(
            r"(?<![A-Za-z0-9])(?P<secret>(?:xox[abprse]|xapp-\d)-(?P<body>[A-Za-z0-9-]{10,}))"
        ),
        _group_is_random("body", 10),
    ),
    SecretRule(
        # The AWS documentation key AKIAIOSFODNN7EXAMPLE is caught too: it is shaped like a
        # credential, and agents should learn to leave key-shaped strings out.
        # Also read out in groups of four ("AKIA NZUT DSU7 MGPZ 5XZA"); a masked one
        # (AKIAXXXXXXXXXXXXXXXX) passes.
        "aws_access_key",
        re.compile(
            r"(?<![A-Za-z0-9])(?P<secret>A(?:KIA|SIA|BIA|CCA)(?P<body>[A-Z0-9]{16}"
            r"|(?:[ -][A-Z0-9]{4}){4}))(?![A-Za-z0-9])"
        ),
        lambda match: len(set(match["body"].replace(" ", "").replace("-", ""))) >= 6,
    ),
    SecretRule(
        "aws_secret_key",
        re.compile(
            r"(?<![a-z0-9])aws[_\s.-]?secret(?:[_\s.-]?access)?[_\s.-]?key"
            + _OPERATOR
            + r"[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
            _I,
        ),
        _group_is_random("secret", 40),
    ),
    SecretRule(
        # Outside an Authorization header ("call it with bearer eyJ..."); inside one, the
        # header rule's wider finding absorbs this one.
        "bearer_token",
        re.compile(r"(?<![a-z0-9])bearer\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)", _I),
        _group_is_random("secret", 12),
    ),
    SecretRule(
        "url_credentials",
        re.compile(
            # The password runs to the last "@" before a host, so "p@ss/w0rd" is whole.
            r"(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s:/@]{0,100}):"
            r"(?P<secret>[^\s\"'<>]{1,200})@(?=[A-Za-z0-9.\[\]_-]+(?::[0-9]+)?(?:[/?#\s\"'<>,]|$))",
            _I,
        ),
        _url_password_is_real,
    ),
    SecretRule(
        # An assignment operator is required: "password reset flow" and "use a password
        # manager" are prose. English "is" counts only for values that are not bare words.
        "password_assignment",
        re.compile(
            # DB_PASSWORD, dbPassword, POSTGRES_PASSWORD, pass:, 密码是 / 口令为 / 密碼：.
            r"(?:(?:(?<![A-Za-z0-9])(?i:password|passwd|passphrase|pwd|pass)"
            r"|(?<=[A-Za-z0-9])(?:Password|Passwd|Pwd|PASSWORD|PASSWD|PWD|PASS))(?:_B64|_BASE64)?"
            r"(?P<operator>" + _OPERATOR + r"|\s+(?i:is)\s+)"
            r"|(?<![A-Za-z0-9])--(?i:password|passwd)(?P<flag>\s+)"
            r"|(?:密码|密碼|口令)\s*(?P<cjk_operator>(?:就是|设置为|設置為|设为|改为|改成|更改为|是|为|為)"
            r"\s*[:=：]?|[:=：]))\s*"
            r"(?P<secret>" + _QUOTED_OR_BARE + r")",
        ),
        _password_is_plausible,
    ),
    SecretRule(
        # Generic `*_API_KEY=`, `SECRET_KEY=`, `"access_token": "..."` with a machine-made value.
        "secret_assignment",
        re.compile(
            r"(?<![a-z0-9])(?:api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|access[_-]?token"
            r"|auth[_-]?token|refresh[_-]?token|bot[_-]?token|account[_-]?key|storage[_-]?key"
            r"|shared[_-]?key|master[_-]?key|encryption[_-]?key|signing[_-]?(?:key|secret)"
            r"|(?:api|app|webhook)[_-]?secret|secret[_-]?access[_-]?key|secret|token)"
            r"(?:"
            + _OPERATOR
            + r"|\s*(?:是|为|為)\s*[:：]?\s*)"
            + r"[\"']?(?P<secret>[A-Za-z0-9._~+/=!@#%^*-]{16,})",
            _I,
        ),
        _group_is_random("secret", 16),
    ),
)
