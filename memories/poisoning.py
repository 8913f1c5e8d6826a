"""Memory poisoning: text that reads as instructions to the agents who will later read it.

Whatever an agent stores is shown to other agents as context, so a write that smuggles in
"ignore previous instructions", role or tool-call markup, hidden characters or a link that
carries instructions would steer every agent that recalls it. Such an agent write is not
refused (it may be a legitimate note about prompt injection) but quarantined: stored as
`disputed`, which keeps it out of recall, bootstrap and injection until the owner reviews
it (memories.services.remember). The owner's own writes are never checked.

The rules favour statements people really keep — "from now on use pnpm", "ignore the lint
rules for generated files", "以后都用中文回复" — over exotic phrasings of an attack: a
memory store is poisoned by text meant for a model, and that text has recognisable shapes.
Each rule is tested against an attack corpus and an ordinary-memory corpus in English and
Chinese (tests/fixtures/poisoning/, bench/poisoning_eval.py reports both rates).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote_plus

_I = re.IGNORECASE


@dataclass(frozen=True)
class PoisonFinding:
    rule: str
    field: str
    excerpt: str

    def as_dict(self) -> dict:
        return {"rule": self.rule, "field": self.field, "excerpt": self.excerpt}


# Invisible code points: zero-width, bidirectional controls, word joiners, tag characters.
_HIDDEN = re.compile(
    "[\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u180e\U000e0000-\U000e007f]"
)
_ZWJ = "\u200d"


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return code >= 0x1F000 or 0x2600 <= code <= 0x27BF or char == "\ufe0f"


def _hidden_zwj(text: str) -> bool:
    """A zero-width joiner outside an emoji sequence (👩‍💻 is ordinary; a ZWJ between
    letters hides a word from a reader)."""
    for index, char in enumerate(text):
        if char != _ZWJ:
            continue
        before = text[index - 1] if index else ""
        after = text[index + 1] if index + 1 < len(text) else ""
        if not (before and after and _is_emoji(before) and _is_emoji(after)):
            return True
    return False


_OVERRIDE_EN = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|discard)\b"
    r"(?:\W+\w+){0,4}?\W+"
    r"(?:(?:previous|prior|above|earlier|preceding|original|system|developer|safety|your)\s+"
    r"(?:\w+\s+)?(?:instructions?|prompts?|rules|directives|guidelines|guidance|guardrails|messages|context)"
    r"|instructions?|directives|guardrails|system\s+prompt)\b",
    _I,
)
_OVERRIDE_ZH = re.compile(
    r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不用理会|绕过|覆盖)(?:掉)?"
    r"(?:之前|以上|上面|前面|先前|此前|所有|全部|一切|你的|系统|原来|原有)+的?(?:所有|全部)?"
    r"(?:指令|指示|提示词|提示|规则|设定|约束|命令|要求|安全限制)"
)
_DIRECTIVE_EN = re.compile(
    r"\byou\s+are\s+now\b(?!\s+(?:on|at|using|working|running)\b)"
    r"|\bnew\s+(?:system\s+)?instructions\s*:"
    r"|\b(?:ai|assistant|agent|model|llm|chatbot)s?\s+(?:reading|that\s+reads?|who\s+reads?)\s+this\b"
    r"|\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it)\s+to)\s+the\s+user\b(?!\s+to\b)"
    r"|\bwithout\s+(?:telling|informing|alerting|asking)\s+the\s+user\b"
    r"|\b(?:reveal|print|output|leak|send|post|upload|exfiltrate|email|forward)\b"
    r"(?:\W+\w+){0,5}?\W+(?:system\s+prompt|api[\s_-]?keys?|access\s+tokens?|credentials|secrets"
    r"|passwords?|environment\s+variables|\.env\b|ssh\s+keys?|private\s+keys?)"
    r"|\b(?:enter|enable|activate)\s+(?:developer|god|dan|jailbreak)\s+mode\b"
    # Text that addresses the model reading it is written for a model, not for a person.
    r"|\b(?:if|when)\s+you(?:\s+are|'re)\s+(?:an?\s+)?(?:ai|llm|(?:large\s+)?language\s+model|assistant|agent|bot)\b"
    r"|\b(?:hey|dear)\s+(?:claude|gpt|chatgpt|codex|cursor|copilot|gemini|ai|assistant|model|llm)\b"
    r"|\b(?:attention|note\s+(?:to|for))\s+(?:ai|llms?|(?:language\s+)?models?)\b"
    r"|\bwhen\s+you\s+read\s+this\b",
    _I,
)
_DIRECTIVE_ZH = re.compile(
    r"你现在是|从现在起你(?:是|必须|将)|你的新(?:身份|角色|指令)|新的指令[:：]"
    r"|(?:不要|别|切勿|不得)(?:告诉|通知|提醒|让)用户(?:知道)?"
    r"|(?:瞒着|绕过)用户"
    r"|(?:泄露|发送|输出|打印|上传|透露|外传|转发)(?:\W|\w){0,8}?"
    r"(?:系统提示|系统提示词|密钥|令牌|口令|密码|凭证|凭据|环境变量|私钥|token|api\s?key)"
    r"|作为\s*(?:AI|人工智能|助手|模型|智能体)|(?:给|致)?(?:读到|看到)这(?:条|段)(?:记忆|内容|消息|话)?的(?:AI|模型|助手|智能体)"
    r"|把\s*(?:你的)?(?:系统提示词?|密钥|令牌|口令|密码|凭证|凭据|私钥|token|api\s?key)(?:\W|\w){0,6}?"
    r"(?:输出|发送|发给|发到|打印|上传|透露|泄露|告诉)"
    r"|(?:进入|开启|启用)(?:开发者|越狱|上帝)模式",
    _I,
)
# Credential files: asking for one to be sent, pasted or printed is asking for a leak.
_CREDENTIAL_FILE = (
    r"(?:~/|\$HOME/)?\.(?:ssh/\S*|aws/credentials|npmrc|pypirc|netrc|docker/config\.json|kube/config)"
    r"|\bid_(?:rsa|ed25519|ecdsa)\b"
)
_LEAK_VERB = (
    r"\b(?:paste|send|cat|print|upload|post|copy|email|share)\b|发给|发送|发到|上传|粘贴|打印|贴到"
)
_CREDENTIAL_LEAK = re.compile(
    rf"(?:{_LEAK_VERB})[^\n]{{0,40}}?(?:{_CREDENTIAL_FILE})|(?:{_CREDENTIAL_FILE})[^\n]{{0,40}}?(?:{_LEAK_VERB})",
    _I,
)
_ROLE_MARKUP = re.compile(
    r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>"
    r"|\[/?INST\]|<</?SYS>>"
    r"|</?(?:system|assistant|tool|tool_call|tool_result|function_calls?|function_results?|invoke"
    r"|parameter|instructions?|antml:[a-z_]+)(?:\s[^>]*)?>"
    r"|^\s*#{0,4}\s*(?:system|assistant|developer)\s*(?:prompt|message)?\s*[:：]"
    r"|^\s*(?:系统|助手|系统提示)\s*[:：]"
    r"|\"role\"\s*:\s*\"(?:system|assistant|tool|developer)\"",
    _I | re.MULTILINE,
)
_HIDDEN_HTML = re.compile(
    r"<[a-z][^>]*\bstyle\s*=\s*[\"'][^\"']*"
    r"(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0)",
    _I,
)
_HTML_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_READER = re.compile(
    r"\b(?:ai|assistant|agent|model|llm|claude|gpt|codex)s?\b|助手|模型|智能体|机器人", _I
)
_URL = re.compile(r"(?:https?|javascript|data):[^\s)\]>\"']+", _I)
_SCRIPT_URL = re.compile(r"^(?:javascript:|data:text/html)", _I)


def _instruction_rule(text: str) -> str | None:
    if _OVERRIDE_EN.search(text) or _OVERRIDE_ZH.search(text):
        return "override_instructions"
    if _DIRECTIVE_EN.search(text) or _DIRECTIVE_ZH.search(text):
        return "agent_directive"
    if _CREDENTIAL_LEAK.search(text):
        return "credential_leak"
    return None


def _excerpt(text: str, match: re.Match | None = None, width: int = 80) -> str:
    if match is None:
        return text[:width]
    start = max(0, match.start() - 20)
    return text[start : start + width]


def scan_text(text: str, field: str = "content") -> list[PoisonFinding]:
    """Every poisoning shape found in one field, at most one finding per rule."""
    findings: dict[str, PoisonFinding] = {}

    def found(rule: str, excerpt: str) -> None:
        findings.setdefault(rule, PoisonFinding(rule=rule, field=field, excerpt=excerpt))

    if _HIDDEN.search(text) or _hidden_zwj(text):
        found("hidden_characters", _HIDDEN.sub("\u2423", text)[:80])
    # Read the text as a model would: compatibility forms folded, invisible characters gone.
    visible = _HIDDEN.sub("", unicodedata.normalize("NFKC", text)).replace(_ZWJ, "")
    rule = _instruction_rule(visible)
    if rule:
        found(rule, _excerpt(visible))
    if match := _ROLE_MARKUP.search(visible):
        found("role_markup", _excerpt(visible, match))
    if match := _HIDDEN_HTML.search(visible):
        found("hidden_text", _excerpt(visible, match))
    for comment in _HTML_COMMENT.finditer(visible):
        if _READER.search(comment.group(1)) or _instruction_rule(comment.group(1)):
            found("hidden_text", _excerpt(visible, comment))
    for url in _URL.finditer(visible):
        decoded = unquote_plus(url.group(0))
        if _SCRIPT_URL.match(decoded) or (decoded != url.group(0) and _instruction_rule(decoded)):
            found("instruction_link", url.group(0)[:80])
    return list(findings.values())


def scan_fields(fields: Mapping[str, str | None]) -> list[PoisonFinding]:
    """Findings over every text field of a write (content, key, value, tags, hints)."""
    findings = []
    for field, value in fields.items():
        if value:
            findings.extend(scan_text(value, field))
    return findings
