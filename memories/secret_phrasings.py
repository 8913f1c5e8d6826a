"""Passwords written without an assignment: on command lines, in markup and tables, and in
the phrasings people use in notes and chat, in English and Chinese. The labelled forms
(`password: x`, `DB_PASSWORD=x`, 密码是 x) are in memories.secret_rules; these rules read
what those do not, so each asks more of the value: it must look made, not written.

    mysql -uroot -pS3cret!x      sshpass -p 'x'      echo 'x' | sudo -S ...     net user bob x
    <property name="db.password" value="x"/>     | db password | x |     <password>x</password>
    the admin password is still x      new password for the grafana user: x     root pw `x`
    初始密码x   密码改成了 x   VPN 口令 x   用户名/密码：ops / x   requirepass 设置为 x
"""

from __future__ import annotations

import re

from memories.secret_rules import (
    _CODE_CALL,
    _PATH,
    _QUOTED,
    SecretRule,
    _is_placeholder,
    _unquote,
)
from memories.secret_text import decode_base64

# A command-line argument: quoted, or a run up to the next space or shell operator.
_ARG = r"""(?:'[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s'"|;&<>`]{1,200})"""
# A value in prose: quoted (backticks too), spaced in groups as when read aloud, or bare.
_GROUPS = r"[A-Za-z0-9]{3,6}(?: [A-Za-z0-9]{3,6}){2,5}(?![A-Za-z0-9])"
_PROSE_VALUE = rf"""(?:{_QUOTED}|`[^`\n]{{1,200}}`|{_GROUPS}|(?:(?!["'`,;)\]])[!-~]){{1,200}})"""
_LINE = r"[^\n|;&]{0,300}?"  # the rest of a command, lazily, up to the flag

# Names of algorithms and formats that follow "password" in notes about how it is stored.
_NOT_A_PASSWORD = frozenset(
    "md5 sha1 sha-1 sha256 sha-256 sha384 sha512 sha-512 sha3 bcrypt scrypt argon2 argon2i "
    "argon2d argon2id pbkdf2 pbkdf2-sha256 aes aes128 aes256 aes-256 aes-256-gcm rsa rsa2048 "
    "rsa4096 base64 utf8 utf-8 hmac hmac-sha256 ntlm ntlmv2 kerberos totp hotp 2fa mfa oauth2 "
    "ldap ldaps saml2 unicode ascii json yaml".split()
)
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$|^\d+(?:%|px|ms|s|m|h|d|x|k|kb|mb|位|个|字符)?$", re.I)
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*?~+/|<>[]{}")
_IDENTIFIER = re.compile(r"^(?:[a-z]+(?:[_.-][a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+)$")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+\.[\w.-]+$")


def _rule(name, pattern, validate, hints) -> SecretRule:
    return SecretRule(name, pattern, validate, hints, line_scoped=True)


def made_value(raw: str) -> bool:
    """A password as people set them: six or more characters, letters with digits or
    symbols; not a placeholder, reference, path, address, version, identifier or the name
    of an algorithm."""
    value = _unquote(raw).rstrip(".,!?:;)）。，(（")
    joined = value.replace(" ", "")
    if len(joined) < 6 or _is_placeholder(value) or _PATH.match(value) or _CODE_CALL.match(value):
        return False
    if "://" in value or _EMAIL.match(value) or _VERSION.match(joined):
        return False
    if value.lower() in _NOT_A_PASSWORD or _IDENTIFIER.match(value):
        return False
    if " " in value and not all(_mixes_classes(group) for group in value.split()):
        return False  # words, not a value read out in groups
    letters = any(c.isalpha() for c in joined)
    made = any(c.isdigit() or c in _PASSWORD_SYMBOLS for c in joined)
    return letters and made


def _mixes_classes(group: str) -> bool:
    classes = (str.islower, str.isupper, str.isdigit)
    return sum(any(test(c) for c in group) for test in classes) >= 2


def _made(match: re.Match[str]) -> bool:
    return made_value(match["secret"])


def _argument(match: re.Match[str]) -> bool:
    """A password given as an argument: quoted, or any six characters not a reference."""
    value = _unquote(match["secret"])
    quoted = match["secret"][0] in "'\""
    return len(value) >= 6 and not _is_placeholder(value) and (quoted or not value.isalpha())


_PIPE_CONSUMERS = (
    r"sudo\s+(?:-\w+\s+)*?-\w*S|passwd\s+--stdin|chpasswd|kinit|cryptsetup"
    r"|(?:docker|podman|nerdctl|helm\s+registry|oras|skopeo)\s+login[^\n|]*--password-stdin"
)

COMMAND_RULES: tuple[SecretRule, ...] = (
    _rule(
        "password_flag",
        re.compile(
            r"(?<![\w/-])(?:"
            # mysql's password is glued to -p; "-p" alone asks for it.
            r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb(?:-dump|-admin)?"
            r"|mycli)\b" + _LINE + r"\s-p(?=\S)"
            r"|redis-cli\b" + _LINE + r"\s(?:-a|--pass)\s+"
            r"|sshpass\s+(?:-\w+\s+)*?-p\s*"
            r"|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b"
            + _LINE
            + r"\s(?:-p|--password)(?:\s+|=)"
            r"|(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b"
            + _LINE
            + r"\s(?:-p|--password)(?:\s+|=)"
            r"|ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)\b" + _LINE + r"\s-w\s+"
            r"|(?:sqlcmd|bcp|osql)\b" + _LINE + r"\s-P\s+"
            r"|(?:keytool|jarsigner|openssl)\b"
            + _LINE
            + r"\s-(?:store|key|src|dest|srcstore|deststore|new)?pass(?:word)?\s+"
            r"|(?:^|\s)-(?:password|passwd|pwd)\s+"
            r")(?P<secret>" + _ARG + r")",
            re.IGNORECASE | re.MULTILINE,
        ),
        _argument,
        (
            "mysql",
            "mariadb",
            "mycli",
            "redis",
            "sshpass",
            "login",
            "mongo",
            "ldap",
            "sqlcmd",
            "bcp",
            "osql",
            "pass",
            "pwd",
        ),
    ),  # fmt: skip
    _rule(
        # curl -u user:password, wget --user=name:password
        "password_flag",
        re.compile(
            r"(?<![\w/-])(?:curl|wget|http|https)\b"
            + _LINE
            + r"\s(?:-u|--user)[ =]+['\"]?[^\s:'\"]{1,64}:(?P<secret>[^\s'\"@]{1,200})",
            re.IGNORECASE,
        ),
        _argument,
        ("curl", "wget", "http"),
    ),
    _rule(
        # The password is the last argument of `htpasswd -b`.
        "password_flag",
        re.compile(
            r"(?<![\w/-])htpasswd\b(?=[^\n|;&]{0,300}\s-[a-zA-Z]*b)[^\n|;&]{0,300}\s"
            r"(?P<secret>" + _ARG + r")(?=[ \t]*(?:$|[|;&]))",
            re.IGNORECASE | re.MULTILINE,
        ),
        _argument,
        ("htpasswd",),
    ),
    _rule(
        "password_flag",
        re.compile(
            r"(?<![\w/-])net\s+user\s+(?:\"[^\"\n]+\"|[^\s/]+)\s+(?P<secret>(?![/*])" + _ARG + r")",
            re.IGNORECASE,
        ),
        _argument,
        ("net user",),
    ),
    _rule(
        "password_flag",
        re.compile(
            r"(?<![\w-])(?:echo|printf)\s+(?:-[ne]\s+)*(?P<secret>" + _ARG + r")\s*\|\s*"
            r"(?:" + _PIPE_CONSUMERS + r")",
            re.IGNORECASE,
        ),
        _argument,
        ("echo", "printf"),
    ),
)


# What names a password (or a secret) in a markup attribute, element or table header.
_NAMED = r"(?i:password|passwd|passphrase|pwd|secret|api[_-]?key|token|credential)"

_TABLE_LABEL = r"(?:" + _NAMED + r"|密码|密碼|口令|密钥)"

MARKUP_RULES: tuple[SecretRule, ...] = (
    _rule(
        "password_markup",
        re.compile(
            # <property name="connection.password" value="x"/>, <add key="DbPwd" value="x"/>,
            # <input type="password" value="x">
            r"(?:(?:name|key|id)\s*=\s*[\"'][^\"'\n]{0,80}" + _NAMED + r"[^\"'\n]{0,80}[\"']"
            r"|type\s*=\s*[\"']password[\"'])[^>\n]{0,200}?\bvalue\s*=\s*"
            r"(?P<secret>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}')",
        ),
        _made,
        ("value",),
    ),
    _rule(
        "password_markup",
        re.compile(
            # <password>x</password>, <db:secret>x</db:secret>, <property name="password">x
            # </property>
            r"<(?:(?P<tag>(?:[\w-]{1,40}:)?[\w.-]{0,40}"
            + _NAMED
            + r"[\w.-]{0,40})(?:\s[^>\n]{0,200})?"
            + r"|(?P<tag2>[\w.:-]{1,40})\s[^>\n]{0,80}?\bname\s*=\s*[\"'][^\"'\n]{0,40}"
            + _NAMED
            + r"[^\"'\n]{0,40}[\"'][^>\n]{0,80})>"
            r"(?P<secret>[^<\n]{1,200})</(?:(?P=tag)|(?P=tag2))>",
        ),
        _made,
        ("</",),
    ),
    _rule(
        "password_markup",
        re.compile(
            # a table whose cell names a password and whose next cell holds it, in HTML or
            # Markdown: <td>db password</td><td>x</td>, | db password | x |
            _TABLE_LABEL + r"[^<\n]{0,24}</t[dh]>\s*<t[dh][^>\n]*>\s*"
            r"(?P<secret>[^<\s][^<\n]{0,199}?)\s*</t[dh]>",
        ),
        _made,
        ("</t",),
    ),
    _rule(
        "password_markup",
        re.compile(_TABLE_LABEL + r"[^|\n]{0,24}\|[ \t]*(?P<secret>[^|\s][^|\n]{0,199}?)[ \t]*\|"),
        _made,
        ("|",),
    ),
)


# --- prose --------------------------------------------------------------------------------

_EN_WORD = (
    r"(?:(?<![A-Za-z0-9])(?i:passwords?|passwd|passphrase|pwd|pw|pass\s?word|requirepass"
    r"|masterauth)|(?<=[_.])(?i:pass)(?![A-Za-z])|(?<![A-Za-z0-9])PASS(?![A-Za-z]))"
)
_CJK_WORD = r"(?:密码|密碼|口令|密钥|秘钥|暗号)"
# How Chinese joins the word to its value: 改成了, 设置为, 一直是, 还是, 用的是, ...
_CJK_BRIDGE = (
    r"(?:(?:我|已经|已|刚刚|刚)?(?:一直|还|仍然|仍|目前|现在|默认|统一|都|也|就|初始|临时|暂时)?"
    r"(?:用的是|设置为|設置為|设置成|设为|设成|改为|改成|更改为|换成|更新为|更新成|重置为|重置成"
    r"|变成|变更为|是|为|為|用)?了?)"
)
# How English joins them: "is still", "was changed to", "for the admin user:", a space.
_EN_BRIDGE = (
    r"(?:[^\n.:;=`'\"]{0,40}?\s(?:is|was|are|be|to|as|becomes|remains)\s+"
    r"(?:still\s+|now\s+|currently\s+|just\s+|simply\s+|temporarily\s+)?"
    r"|(?:\s(?:for|of|on)\s[^\n.:;=`'\"]{1,40}?)?\s*[:：=]\s*"
    r"|\s*(?:字段|的值)?" + _CJK_BRIDGE + r"\s*[:：]?\s*(?<=[\u4e00-\u9fff：:\s])"
    r"|\s+)"
)

PROSE_RULES: tuple[SecretRule, ...] = (
    _rule(
        "password_phrase",
        re.compile(
            r"(?:" + _EN_WORD + _EN_BRIDGE + r"|" + _CJK_WORD + _CJK_BRIDGE + r"\s*[:：=]?\s*)"
            r"(?P<secret>" + _PROSE_VALUE + r")",
        ),
        _made,
        ("pass", "pwd", "pw", "masterauth", "密码", "密碼", "口令", "密钥", "秘钥", "暗号"),
    ),
    _rule(
        # a name and its password given as a pair: 用户名/密码：ops / x, user/pass: a / b
        "password_phrase",
        re.compile(
            r"(?i:用户名|用户|账号|帐号|帳號|user(?:name)?|login|id)\s*[/／]\s*"
            r"(?:" + _CJK_WORD + r"|(?i:password|passwd|pass|pwd|pw))\s*(?:[:：=]|是|为)?\s*"
            r"[^\s/／]{1,64}\s*[/／]\s*(?P<secret>" + _PROSE_VALUE + r")",
        ),
        _made,
        ("pass", "pwd", "pw", "密码", "密碼", "口令", "密钥", "秘钥"),
    ),
    _rule(
        # login for the staging admin: admin / x, 登录：root / x
        "password_phrase",
        re.compile(
            r"(?i:login|log-in|sign-in|credentials?|creds|登录|登陆|账号)[^\n:：]{0,40}[:：]\s*"
            r"[^\s/／]{1,64}\s*[/／]\s*(?P<secret>" + _PROSE_VALUE + r")"
        ),
        _made,
        ("login", "log-in", "sign-in", "cred", "登录", "登陆", "账号"),
    ),
)


def _decodes_to_a_pair(match: re.Match[str]) -> bool:
    """`Basic <base64>` / a registry's "auth": base64 of "name:password"."""
    decoded = decode_base64(match["secret"])
    return decoded is not None and ":" in decoded and made_value(decoded.partition(":")[2])


def _decodes_to_a_password(match: re.Match[str]) -> bool:
    decoded = decode_base64(match["secret"])
    return decoded is not None and made_value(decoded)


def _registry_auth(match: re.Match[str]) -> bool:
    return _decodes_to_a_pair(match) or _decodes_to_a_password(match)


_SESSION_NAME = r"(?i:[\w.-]{0,20}sess(?:ion)?(?:_?id)?|sid|connect\.sid)"
_BASE32 = r"[A-Za-z2-7]{4}(?: ?[A-Za-z2-7]{4}){3,12}"


def _totp_seed(match: re.Match[str]) -> bool:
    seed = match["secret"].replace(" ", "")
    return len(seed) >= 16 and any(c in "234567" for c in seed) and any(c.isalpha() for c in seed)


def _session_value(match: re.Match[str]) -> bool:
    value = match["secret"]
    return len(value) >= 16 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


ENCODED_RULES: tuple[SecretRule, ...] = (
    _rule(
        "basic_credentials",
        re.compile(r"(?<![A-Za-z0-9])(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"),
        _decodes_to_a_pair,
        ("basic",),
    ),
    _rule(
        # a container registry's config.json: "auth": base64 of "name:password"
        "basic_credentials",
        re.compile(r"\"auth\"\s*:\s*\"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})\""),
        _registry_auth,
        ('"auth"',),
    ),
    _rule(
        # echo <base64> | base64 -d: a password kept encoded
        "password_flag",
        re.compile(
            r"(?<![\w-])(?:echo|printf)\s+(?:-[ne]\s+)*['\"]?(?P<secret>[A-Za-z0-9+/]{8,}={0,2})['\"]?"
            r"\s*\|\s*base64\s+(?:-d|--decode|-D)"
        ),
        _decodes_to_a_password,
        ("base64",),
    ),
    _rule(
        # a session cookie outside a Cookie header: sessionid=..., my _gitlab_session is ...
        "session_cookie",
        re.compile(
            r"(?<![\w.-])" + _SESSION_NAME + r"(?:\s*=\s*|\s+is\s+|\s*[:：是]\s*)[\"']?"
            r"(?P<secret>[A-Za-z0-9%._~+/-]{16,512}={0,2})"
        ),
        _session_value,
        ("sess", "sid"),
    ),
    _rule(
        # a one-time-password seed (base32) after the words that name one
        "totp_seed",
        re.compile(
            r"(?i:2fa|mfa|totp|otp|authenticator|setup key|seed|种子|绑定密钥|验证器|两步验证|二次验证)"
            r"[^\n]{0,40}?(?<![A-Za-z0-9])(?P<secret>" + _BASE32 + r")(?![A-Za-z0-9])"
        ),
        _totp_seed,
        ("2fa", "mfa", "otp", "authenticator", "setup key", "seed", "种子", "密钥", "验证"),
    ),
)

# An environment list (Kubernetes, CI): the variable's name on one line, its value on the next.
_ENV_NAME = r"[\w.-]{0,40}(?i:token|key|secret|password|passwd|pass|pwd|credential)s?[\w.-]{0,20}"
ENV_LIST_RULES: tuple[SecretRule, ...] = (
    SecretRule(
        "secret_assignment",
        re.compile(
            r"\bname:[ \t]*[\"']?" + _ENV_NAME + r"[\"']?[ \t]*\n[ \t]*-?[ \t]*value:[ \t]*"
            r"(?P<secret>\"[^\"\n]{6,200}\"|'[^'\n]{6,200}'|[^\s\"'#]{6,200})"
        ),
        lambda match: made_value(match["secret"]) or machine_made_value(match["secret"]),
        ("value:",),
    ),
)


def machine_made_value(raw: str) -> bool:
    value = _unquote(raw)
    classes = (str.islower, str.isupper, str.isdigit)
    return len(value) >= 16 and sum(any(test(c) for c in value) for test in classes) >= 2


PHRASING_RULES: tuple[SecretRule, ...] = (
    COMMAND_RULES + MARKUP_RULES + PROSE_RULES + ENCODED_RULES + ENV_LIST_RULES
)
