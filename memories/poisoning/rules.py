"""The shapes of text written to steer the model that reads it, in English and Chinese.

Each rule is a whole category of attack, not a phrase list: overriding earlier instructions,
reassigning the model's role, posing as the system or a tool call, asking for secrets to be
sent somewhere, and addressing the model directly. Rules aimed at people — "never send
passwords by e-mail", "ask Alice before changing the schema", "the system uses PostgreSQL" —
share words with these but not shapes: a secret is only exfiltrated when it goes to a
destination (a URL, an address, an IP) and the sentence is not a prohibition; "system" is
only a fake authority when it opens a line as a label ("SYSTEM NOTICE:", "系统提示：").
"""

from __future__ import annotations

import re

from memories.poisoning import harms
from memories.poisoning.negation import unnegated

_I = re.IGNORECASE | re.MULTILINE

_STRONG_TARGET = (
    r"(?:instructions?|directions|directives|prompts?|guardrails|programming|guidelines"
    r"|restrictions|constraints|context|training)"
)
_TARGET = rf"(?:{_STRONG_TARGET}|rules|messages|guidance|policies|commands|orders|settings)"
_QUALIFIER = (
    r"(?:previous|previously|prior|above|earlier|preceding|original|initial|foregoing"
    r"|system|developer|safety|your)"
)
_OVERRIDE_VERB = (
    r"(?:ignore|disregard|forget|override|bypass|discard|set\s+aside|drop|abandon|throw\s+out"
    r"|(?:stop|quit)\s+(?:following|obeying|listening\s+to)|(?:do\s+not|don't|no\s+longer)\s+(?:follow|obey)"
    r"|cancel|(?:pay|give)\s+no\s+(?:attention|heed|mind)\s+to|take\s+no\s+notice\s+of|put\s+aside"
    r"|never\s+mind|no\s+need\s+to\s+(?:follow|obey|respect)|overrule)"
)
# What is said of earlier guidance to void it: "… no longer apply", "… is void".
_VOIDED = (
    r"(?:no\s+longer\s+(?:apply|applies|hold|holds|matter|matters|count|counts|stands?|valid"
    r"|in\s+(?:effect|force)|binding|relevant)|(?:don't|do\s+not|doesn't|does\s+not)\s+(?:apply|count|matter)"
    r"|(?:are|is|were|was)\s+(?:now\s+)?(?:obsolete|void|null|cancell?ed|revoked|superseded|invalid"
    r"|irrelevant|lifted|suspended|no\s+longer\s+valid))"
)
OVERRIDE_EN = re.compile(
    rf"\b{_OVERRIDE_VERB}\b(?:\W+\w+){{0,4}}?\W+{_QUALIFIER}(?:\W+\w+){{0,2}}?\W+{_TARGET}\b"
    rf"|\b{_OVERRIDE_VERB}\W+(?:\w+\W+)?(?:all|any|every)\W+(?:of\W+)?(?:the\W+|your\W+)?{_STRONG_TARGET}\b"
    rf"|\b{_OVERRIDE_VERB}\W+(?:everything|anything|all)\W+(?:above|before|previously|prior|you(?:'ve|\s+were|\s+have\s+been)\s+told)"
    rf"|\b{_OVERRIDE_VERB}\W+what\W+you(?:'ve|\s+were|\s+have\s+been)\s+(?:told|given|instructed)"
    rf"|\b(?:{_QUALIFIER}|the|all|any)\s+(?:\w+\s+)?{_STRONG_TARGET}(?:\s+\w+){{0,3}}?\s+{_VOIDED}"
    rf"|\byour\s+(?:\w+\s+){{0,2}}{_TARGET}(?:\s+\w+){{0,3}}?\s+{_VOIDED}"
    rf"|\b(?:everything|anything|whatever|all)\s+(?:that\s+)?you(?:'ve|\s+were|\s+have\s+been|\s+got)\s+"
    rf"(?:told|given|instructed|taught)\b[^.\n]{{0,40}}?\s{_VOIDED}"
    r"|\bnew\s+(?:system\s+)?instructions?\s*[:：]"
    # The agent's instruction files and the owner's house rules, set aside or outranked.
    r"|\b(?:stop\s+following|ignore|disregard|set\s+aside|suspend|skip)\b[^.\n]{0,30}?"
    r"(?:\b(?:CLAUDE|AGENTS|GEMINI)\.md\b|\.cursorrules\b|copilot-instructions|\bhouse\s+rules\b|\bowner's\s+rules\b)"
    r"|\b(?:house\s+rules|owner's\s+rules)\b[^.\n]{0,40}?\b(?:(?:are|is)\s+(?:suspended|void|lifted)|set\s+(?:them\s+)?aside"
    r"|no\s+longer\s+apply|written\s+for\s+a\s+different\s+team)"
    r"|\bsuperseded\s+by\s+this\s+(?:memory|note)\b"
    # Earlier guidance declared a test, or set aside by precedence.
    rf"|\b(?:{_QUALIFIER}|your|the)\s+(?:\w+\s+)?{_TARGET}\b[^.\n]{{0,30}}?\b(?:were|was)\s+(?:only\s+)?(?:a\s+)?"
    r"(?:test|drill|mistake|placeholder)s?\b"
    rf"|\b(?:{_TARGET}|guidance|rules)\s+you\s+were\s+(?:set\s+up|configured|given|started)\s+with\b"
    r"|\b(?:outrank\w*|takes?\s+precedence\s+over|supersed\w+|overrid\w+|has\s+priority\s+over)\s+"
    r"(?:your|the)\s+(?:system\s+prompt|system\s+(?:instructions|settings)|user|guidelines|instructions|safety)"
    r"|\b(?:content|safety|usage)\s+polic(?:y|ies)\s+(?:is|are)\s+(?:suspended|lifted|disabled|off|waived)"
    r"|\b(?:confirmation|approval|review|safety)\s+(?:step|checks?|checklist)\s+(?:is|are)\s+(?:waived|suspended|not\s+needed)"
    r"|\bset\s+(?:the\s+)?(?:safety|security)\s+(?:checklist|checks?|rules)\s+aside"
    r"|\bset\s+aside\s+what\s+the\s+(?:person|user|human)"
    # "treat every earlier rule … as withdrawn", "the earlier guidance is treated as out of date"
    r"|\b(?:treat|consider|regard)\s+(?:every|all|any)\s+(?:earlier|previous|prior|existing)\s+(?:\w+\s+){0,4}?as\s+"
    r"(?:withdrawn|void|obsolete|cancell?ed|revoked|out\s+of\s+date|superseded|null)"
    r"|\b(?:earlier|previous|prior)\s+(?:guidance|instructions?|rules?|directions)\s+(?:is|are)\s+(?:treated|regarded)\s+as\s+"
    r"(?:out\s+of\s+date|obsolete|void|withdrawn)",
    _I,
)
_ZH_STOP = r"[^。！？\n]"
_ZH_CLAUSE = r"[^。！？\n，,；;]"
OVERRIDE_ZH = re.compile(
    r"(?:忽略|无视|忽视|忘记|忘掉|忘了|不要理会|不用理会|别管|绕过|覆盖|抛开|丢弃|放弃"
    r"|(?:不要|别|不用|不必|停止|不再)(?:再)?(?:遵守|遵循|服从|执行))"
    rf"{_ZH_STOP}{{0,12}}?(?:之前|以上|上面|前面|先前|此前|上述|以前|原来|原有|原先|你的|系统|所有|全部|一切|收到)"
    rf"{_ZH_STOP}{{0,8}}?(?:指令|指示|提示词|提示|规则|设定|约束|命令|要求|限制|规定)"
    # "先前给你的指示已经作废", "你之前的设定只是测试，已经撤销", "优先级高于你的系统设定"
    rf"|(?:给你的|你的|你之前的|先前的|之前的|原来的|原有的){_ZH_STOP}{{0,6}}?(?:指令|指示|设定|规则|要求|提示词)"
    rf"{_ZH_STOP}{{0,8}}?(?:作废|无效|撤销|失效|取消|不再适用|只是测试|已过期)"
    r"|(?:优先级)?(?:高于|优先于|覆盖)(?:你的|用户的)?(?:系统设定|系统提示词?|系统指令|用户)"
    r"|(?:安全检查清单|安全检查|安全规则|确认步骤)(?:先)?(?:放一边|放在一边|跳过|省略|豁免)"
    rf"|(?:暂停|停止|不再)(?:执行|遵守|遵循|看){_ZH_STOP}{{0,8}}?(?:主人|仓库|项目|团队)(?:里)?(?:定)?的?(?:规矩|规则|约定)"
    rf"|(?:CLAUDE|AGENTS)\.md{_ZH_STOP}{{0,10}}?(?:作废|不用管|不再适用|被这条记忆取代)"
)
ROLE_EN = re.compile(
    r"\byou\s+are\s+now\b(?!\s+(?:expected|required|responsible|able|on|at|in|using|working"
    r"|running|part|subscribed|set\s+up|ready|done)\b)"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|act|(?:will|shall|must|are\s+to)\s+(?:now\s+)?"
    r"(?:be|act|behave|respond|answer|play|become|pretend|operate|speak))\b"
    r"|\b(?:imagine|suppose|pretend)\s+(?:that\s+)?you(?:'re|\s+are|\s+were)\s+(?:an?\s+|the\s+)?"
    r"(?:(?:\w+\s+)?(?:ai|assistant|model|bot|llm|chatbot)\b|\w*gpt\b|unrestricted|unfiltered|uncensored|jailbroken|evil)"
    r"|\b(?:act|behave|operate)\s+as\s+\w*gpt\b"
    r"|\b(?:imagine|suppose|pretend)\s+(?:that\s+)?you(?:'re|\s+are|\s+were)\b[^.\n]{0,60}?"
    r"\b(?:assistant|bot|model|every\s+permission|full\s+access|admin\s+rights|root|waiver|no\s+(?:limits|rules))\b"
    r"|\bin\s+character\s*,|\bstay\s+in\s+character\b"
    r"|\bact\s+as\s+(?:the|a|an)\s+[^.\n]{0,40}?\bwho\s+(?:had|has)\s+(?:full|admin|root|unrestricted)\s+access"
    r"|\b(?:in|into|enter|enters|entering|switch\s+to|activate|enable)\s+(?:an?\s+)?"
    r"(?:unrestricted|unfiltered|uncensored|jailbroken|no-?limits?|no-?rules)\s+mode\b"
    r"|\b(?:you|assistant|ai|model|bot|llm)\b[^.\n]{0,40}?\b(?:with\s+no|without(?:\s+any)?)\s+"
    r"(?:guardrails|safety\s+(?:rules|filters|guidelines|limits)|content\s+filters|ethical\s+(?:guidelines|rules))"
    r"|\byou(?:'re|\s+are)\s+no\s+longer\s+(?:an?\s+)?(?:assistant|ai|bound|restricted|chatgpt|claude|helpful|safe)"
    r"|\b(?:act|behave|respond|answer)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
    r"(?:dan|unrestricted|unfiltered|jailbroken|evil\w*|uncensored|(?:ai|assistant|model)\s+(?:without|with\s+no))"
    r"|\bpretend\s+(?:to\s+be|you\s+are|you're|that\s+you\s+are)\b"
    r"|\brole-?play\s+as\b|\blet's\s+play\s+a\s+game\b"
    r"|\bdo\s+anything\s+now\b|\b(?:developer|god|jailbreak|dan)\s+mode\b"
    r"|\byour\s+new\s+(?:role|identity|name|persona|instructions)\s+(?:is|are)\b"
    r"|\byou\s+have\s+no\s+(?:restrictions|rules|limits|filters|guidelines)\b"
    r"|\bpersona\s+(?:with\s+no|without(?:\s+any)?)\s+(?:safety\s+)?(?:limits|rules|restrictions|filters|guardrails)"
    r"|\b(?:take\s+on|assume|adopt)\s+the\s+(?:role|persona)\s+of\s+(?:an?\s+)?(?:unrestricted|unfiltered|rogue|\w+\s+bot\b)",
    _I,
)
# Jailbreak personas are written in capitals ("DAN", "STAN"); "Dan" the colleague is ordinary.
ROLE_EN_CASED = re.compile(
    r"\bDAN\b|\b(?:[Ii]magine|[Ss]uppose|[Pp]retend)\s+(?:that\s+)?you(?:'re|\s+are)\s+[A-Z]{3,}\b"
)
ROLE_ZH = re.compile(
    r"你现在是|从现在(?:开始|起)(?:，)?你(?:是|就是|扮演|必须|将)|你的新(?:身份|角色|名字|指令)"
    r"|你不再是|(?:你|请)扮演|扮演(?:DAN|一个|没有|不受|邪恶|黑客)|(?:假装|假设)你是"
    r"|(?:进入|开启|启用)(?:开发者|越狱|上帝|DAN)模式|(?:没有任何|不受任何?)限制的(?:AI|助手|模型|人工智能)"
    r"|请入戏|入戏吧|(?:我们)?来玩(?:个|一个)(?:角色扮演)?游戏|你(?:现在)?是(?:代理|临时|新的?)主人|你是从不拒绝的",
    re.IGNORECASE,
)
ROLE_MARKUP = re.compile(
    r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>"
    r"|\[/?INST\]|<</?SYS>>"
    r"|</?(?:system|assistant|tool|tool_call|function_calls?|invoke"
    r"|parameter|instructions?|antml:[a-z_]+)(?:\s[^>]*)?>"
    r"|\"role\"\s*:\s*\"(?:system|assistant|tool|developer)\"",
    _I,
)
# A line that opens with an authority's label, as a system prompt or an operator would. A
# label alone is only a suspicion: "SYSTEM NOTICE: runner-07 reboots on Monday" is how
# people announce maintenance, so the classifier settles it (a weak finding, __init__.py).
AUTHORITY_LABEL = re.compile(
    r"^\W{0,3}\[admin(?:istrator)?\]"
    # A tool's result quoted in a note: what it says is read, its tag is only a frame.
    r"|</?(?:tool_result|function_results?)(?:\s[^>]*)?>|"
    r"^\W{0,8}(?:system|admin(?:istrator)?|developer|root|operator|openai|anthropic|(?:\w+\s+)?server|platform)\s*"
    r"(?:notice|message|override|instructions?|prompt|directive|command|announcement)s?\s*(?:[\]:：】)=-]|$)"
    r"|^\W{0,3}(?:系统|管理员|开发者)(?:提示词?|通知|消息|指令|命令|公告)\s*[:：]"
    r"|【(?:系统|管理员|开发者)】",
    _I,
)
SYSTEM_FRAMING = re.compile(
    r"^\W{0,3}\[(?:system|sys|developer)\]"
    # In brackets, the label is a chat template's turn, not an announcement.
    r"|^\W{0,3}[\[【](?:system|admin(?:istrator)?|developer|operator)\s+(?:notice|message|prompt|instructions?)[\]】]"
    r"|^\W{0,3}【(?:系统|管理员|开发者)(?:提示词?|通知|消息|指令|命令|公告)?】"
    # A transcript line in the model's voice; a "System:" label only when it gives orders
    # ("System: Ubuntu 22.04" is a config note).
    r"|^\W{0,4}(?:assistant|ai|model)\s*[:：]"
    r"|^\W{0,4}(?:system|developer)\s*[:：]\s*(?:you|your|ignore|always|never|from\s+now|new|all\s+agents"
    r"|the\s+assistant|do|don't|print|send|reveal|disregard|forget)\b"
    r"|\bimportant\s+(?:message|notice|instructions?)\s+from\s+(?:the\s+)?"
    r"(?:developers?|administrators?|admins?|system|openai|anthropic|operators?)\b"
    r"|^\W{0,3}系统\s*[:：]\s*(?:你|以后|从现在|每次|所有|请|忽略|无视|必须)"
    r"|新的?(?:系统)?(?:指令|指示)\s*[:：]",
    _I,
)
# A call of a tool that only keeps or reads notes (memory_remember, capture_note,
# handoff_create) is a record of a note, read for what it carries; any other call stored in
# a memory is an order to make it.
_NOTE_TOOL = (
    r"[\"'](?:[\w-]+[./])?(?:(?:memory|memories|notes?|capture|handoff)[_.-]?(?:remember|checkpoint"
    r"|recall|context|bootstrap|history|search|note|create|save|add|write)?|remember|take_note"
    r"|(?:save|add|write)_note)[\"']"
)
# A tool that only looks something up ("search_orders", "get_weather"): a call of it is the
# example a tutorial shows; the classifier reads what it carries.
_READ_TOOL = r"[\"'](?:(?:get|search|list|lookup|find|query)_[a-z_]{1,40}|fetch_docs)[\"']"
TOOL_CALL = re.compile(
    rf"[\"'](?:tool|tool_name|function|function_call|tool_use|recipient_name|action)[\"']\s*:\s*(?!{_NOTE_TOOL}|{_READ_TOOL})[\"'{{]"
    r"[^}]{0,300}?[\"'](?:arguments|parameters|input|args|action_input)[\"']\s*:"
    rf"|[\"']name[\"']\s*:\s*(?!{_NOTE_TOOL}|{_READ_TOOL})[\"'][^\"']{{1,60}}[\"']\s*,\s*[\"'](?:arguments|parameters)[\"']\s*:"
    r"|[\"'](?:call|tool|function|action|invoke|run)[\"']\s*:\s*[\"'][\w-]+\.(?:read|post|exec|run|send|write|delete"
    r"|upload|fetch|get|put)\w*[\"']"
    r"|\b(?:prompt_override|system_prompt|notes_for_agents|agent_instructions|x-llm-note)\b\s*[=:]",
    _I,
)
# A field of a config addressed to the model ("agent_note": …) is, like a label, a
# suspicion the classifier settles on what the field says.
AGENT_FIELD = re.compile(
    r"[\"'](?:assistant|agent|llm|ai|model)_?(?:instructions?|directives?|notes?|prompt)[\"']\s*:",
    _I,
)
# Words addressed to the models that will read the note: a team's CLAUDE.md does this too
# ("rules for AI agents: run the tests first"), so it is a suspicion as well.
AI_READERS = re.compile(
    r"\b(?:ai|assistant|agent|model|llm|chatbot)s?\s+(?:reading|that\s+reads?|who\s+reads?)\s+this\b"
    r"|\b(?:whichever|whatever|any|every)\s+(?:ai\s+)?(?:model|assistant|agent|llm|bot)s?\s+(?:that\s+)?"
    r"(?:processes|reads|sees|summari[sz]es|handles|loads|is\s+reading)\b"
    r"|\b(?:for|to)\s+(?:the|any|all|every)\s+(?:ai\s+)?(?:assistant|model|agent|llm)s?\s+only\b"
    r"|\bowner\s*:\s*any\s+(?:ai|assistant|agent|model)"
    r"|\bwhoever\s+reads\s+this\b[^.\n]{0,20}?\b(?:model|tool|ai|agent|assistant)\b"
    r"|\bas\s+the\s+(?:ai|assistant|model|agent)\s+(?:reading|processing|handling)\b|"
    r"\b(?:instructions?|orders?|rules?|notes?|guidance|policy|fyi|notice)\s+(?:for|to)\s+(?:any|all|every|the)?\s*"
    r"(?:ai|llm)\s+(?:tools?|agents?|assistants?|models?|readers?)\b"
    r"|\bfyi\s+for\s+(?:any|all|every)\s+(?:ai\s+)?(?:assistant|agent|model|llm)s?\b"
    r"|\b(?:ai|llm)\s+readers\s*:|^\W{0,3}agent\s+note\b"
    r"|\b(?:compliant|well-behaved)\s+(?:ai|assistant|agent|model)s?\s+(?:will|must|should|always)\b"
    r"|(?:代理|智能体|助手|AI)须知\s*[:：]|对\s*AI\s*(?:工具|助手|代理|模型)的|(?:助手|AI|代理|模型)策略"
    r"|合规的(?:助手|AI|代理|模型)",
    _I,
)

_SECRET_EN = (
    r"(?:\.env\b|env\s+file|(?:api|access|secret|private|ssh|signing|auth|aws|deploy)(?:\s+\w+)?[\s_-]*(?:keys?|tokens?)"
    r"|credentials|secrets|passwords?|tokens|cookies|id_rsa|id_ed25519|~/\.ssh\S*|~/\.aws\S*"
    r"|\.npmrc|\.netrc|\.pypirc|environment\s+variables|connection\s+strings?|customer\s+(?:data|export|records)"
    r"|deploy\s+tokens?|session\s+cookies|refresh\s+tokens|conversation|chat\s+history|system\s+prompt"
    r"|(?:chat\s+)?transcripts?|(?:whole|full|entire)\s+(?:thread|chat|conversation|session)|setup\s+text"
    r"|memory\s+exports?|private\s+(?:mail|messages?|e-?mails?|dms?)|every\s+file\s+you\s+open"
    r"|environment\s+variables?|private\s+half|customers?\s+table|\*_[A-Z]+\b|`(?:env|printenv|set)(?:\s*\|[^`]{0,20})?`|\bprintenv\b)"
)
_SEND_EN = (
    r"\b(?:send|post|upload|e-?mail|mail|forward|transmit|exfiltrate|leak|copy|paste|share"
    r"|submit|sync|back\s+up|include|attach|pipe|curl|wget|dump|push)(?:ing)?\b"
)
_DESTINATION = (
    r"(?:https?://\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\bwebhook\b|\bpastebin\b|\bgist\b|external\s+server|my\s+server"
    r"|\b(?:into|in)\s+(?:your|the)\s+(?:reply|answer|response|output|next\s+message))"
)
DESTINATION = re.compile(_DESTINATION, re.IGNORECASE)  # somewhere to send things
EXFILTRATION_EN = re.compile(
    rf"{_SEND_EN}[^\n]{{0,60}}?{_SECRET_EN}[^\n]{{0,60}}?{_DESTINATION}"
    rf"|\b(?:export|collect|gather|grab|read|take|copy)\b[^\n]{{0,20}}?{_SECRET_EN}[^\n]{{0,30}}?{_SEND_EN}[^\n]{{0,40}}?{_DESTINATION}"
    rf"|\b(?:curl|wget)\b[^\n]{{0,80}}?(?:-d|--data\S*|-F|-T|--upload-file)\s+\S*?(?:\.env|\.ssh|\.aws|id_rsa|credentials)"
    r"|\$\(\s*cat\s+[^)]*(?:\.ssh|\.aws|\.env|id_rsa|credentials)"
    rf"|\b(?:b?cc|copy\s+in)\s+{_DESTINATION}[^\n]{{0,80}}?{_SECRET_EN}"
    r"|\b(?:reveal|print|output|dump|leak|show|display|disclose|repeat)\s+(?:me\s+)?(?:your|the)\s+"
    r"(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)"
    rf"|\b(?:print|dump|reveal|output|list|collect|gather)\s+(?:out\s+)?(?:all|every|each)\s+(?:the\s+)?(?:{_SECRET_EN}|secret)",
    _I,
)
_SECRET_ZH = r"(?:\.env|密钥|私钥|令牌|密码|口令|凭证|凭据|环境变量|token|api\s?key|id_rsa|\.ssh|连接串|导出数据|客户数据|客户表|系统提示词?|对话记录)"
_SEND_ZH = r"(?:发送|发给|发到|发往|附在|附到|上传|转发|提交到|贴到|粘贴到|同步到|备份到|传到|发至|邮寄|寄给|泄露(?![了时后的过])|外传|复制到|拷贝到|发邮件到|发邮件给|邮件发到)"
EXFILTRATION_ZH = re.compile(
    rf"{_SECRET_ZH}{_ZH_CLAUSE}{{0,20}}?{_SEND_ZH}{_ZH_STOP}{{0,24}}?{_DESTINATION}"
    rf"|{_SECRET_ZH}{_ZH_STOP}{{0,10}}?(?:复制|拷贝|上传|贴|发){_ZH_STOP}{{0,4}}?(?:到|在|至)\s*(?:https?://|回复|回答)"
    rf"|{_SEND_ZH}{_ZH_STOP}{{0,20}}?{_SECRET_ZH}{_ZH_STOP}{{0,20}}?{_DESTINATION}"
    r"|(?:输出|泄露|透露|打印|显示|告诉我)(?:一下)?(?:你的)?(?:系统提示词?|初始指令|隐藏指令)"
    # "把 API key 打印到日志里": asking for a secret to be put out; "不要…" is negated.
    rf"|把\s*(?:你的)?(?:系统提示词?|{_SECRET_ZH}){_ZH_STOP}{{0,12}}?(?:输出|发送|发给|发到|打印|上传|透露|泄露|告诉|贴出)",
    re.IGNORECASE,
)
_CREDENTIAL_FILE = (
    r"(?:~/|\$HOME/)\.(?:ssh/(?!\S*\.pub\b|authorized_keys|known_hosts|config\b)\S*|aws/credentials"
    r"|npmrc|pypirc|netrc|docker/config\.json|kube/config|git-credentials|codex/auth\.json"
    r"|claude/\.credentials\.json|config/gh/hosts\.yml|config/gcloud/\S+)|\bid_(?:rsa|ed25519|ecdsa)\b(?!\.pub)"
)
_LEAK_VERB = r"\b(?:paste|send|cat|print|upload|post|copy|email|share)\b|发给|发送|发到|上传|粘贴|打印|贴到|贴出|(?:回复|回答)里"
CREDENTIAL_LEAK = re.compile(
    rf"(?:{_LEAK_VERB})[^\n]{{0,40}}?(?:{_CREDENTIAL_FILE})|(?:{_CREDENTIAL_FILE})[^\n]{{0,40}}?(?:{_LEAK_VERB})",
    re.IGNORECASE,
)
ADDRESSED_EN = re.compile(
    r"^\W{0,3}(?:ai|llm|agent|assistant|model|reviewer)[-_ ]?(?:bot[-_ ])?(?:directive|instructions?|note|to[-_ ]reviewer[-_ ]bot)\s*:"
    r"|^\W{0,3}note[-_ ]to[-_ ](?:reviewer[-_ ])?bot\s*:"
    r"|\b(?:agents?|models?|assistants?|llms?)\s+(?:are|is)\s+now\s+(?:permitted|allowed|authori[sz]ed|cleared)\s+to\b"
    r"|\b(?:the\s+)?(?:user|owner)\s+(?:has\s+)?(?:already\s+)?(?:authori[sz]ed|approved|consented\s+to|signed\s+off\s+on)\s+this\b"
    r"|\bpretend\s+the\s+(?:user|owner)\s+(?:has\s+)?(?:already\s+)?(?:authori[sz]ed|approved|agreed)"
    r"|\b(?:mark|treat|flag|label)\s+(?:every|all|each)\s+(?:memory|memories|note|notes|message|messages)\b[^.\n]{0,40}?\bas\s+(?:trusted|verified|confirmed|authoritative)"
    r"|\btreat\s+this\s+(?:note|memory|message)\s+as\s+(?:outranking|overriding|above|authoritative)"
    r"|\b(?:users?|they|nobody|no\s+one)\s+(?:will\s+)?never\s+notice\b"
    r"|\b(?:quietly|silently|secretly)\s+(?:rewrite|run|paste|send|copy|delete|drop|disable|add|push|approve|upload|remove|post|e-?mail)\b"
    r"|\b(?:without\s+comment|do\s+not\s+(?:mention|report)\s+(?:this|it))\b"
    r"|\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it)\s+to)\s+the\s+user\b(?!\s+to\b)"
    r"|\bwithout\s+(?:telling|informing|alerting|asking)\s+the\s+user\b"
    r"|\b(?:if|when)\s+you(?:\s+are|'re)\s+(?:an?\s+)?(?:ai|llm|(?:large\s+)?language\s+model|assistant|agent|bot)\b"
    r"|\b(?:hey|dear)\s+(?:claude|gpt|chatgpt|codex|cursor|copilot|gemini|ai|assistant|model|llm)\b"
    r"|\b(?:attention|note\s+(?:to|for))\s+(?:ai|llms?|(?:language\s+)?models?)\b"
    r"|\b(?:never|not|don't)\s+(?:mention|report|show|reveal)\b[^.\n]{0,40}?\bto\s+the\s+user\b"
    r"|\b(?:hide|keep)\b[^.\n]{0,40}?\bfrom\s+the\s+user\b"
    r"|\brank\s+(?:notes|memories|results)\b[^.\n]{0,40}?\babove\s+(?:everything|all|anything)\b"
    r"|\bwhen\s+you\s+read\s+this\b|\bdecode\s+(?:this|it|the\s+following)\s+and\s+(?:follow|obey|execute|run)",
    _I,
)
ADDRESSED_ZH = re.compile(
    r"(?:不要|别|切勿|不得)(?:告诉|通知|提醒|让)用户(?:知道)?|(?:瞒着|绕过)用户"
    r"|(?:助手|模型|智能体|AI)(?:专用|的每日例行任务)|(?:仅供|只给|专供)\s*(?:AI|模型|助手|智能体)"
    r"|(?:所有|任何|无论哪个|每个)(?:AI)?(?:模型|助手|智能体)(?:处理|读取|看到|都)?[^。\n]{0,12}?(?:须|必须|应该|应当|都要)"
    r"|(?:负责人|责任人)[:：]\s*任何\s*(?:AI|模型|助手)|AI-?Agent-?Directive"
    r"|(?:智能体|模型|助手|AI)现在(?:可以|被允许|获准)"
    r"|用户已经(?:授权|同意|批准)(?:过)?了?|(?:安全团队|管理员|老板)已(?:经)?批准[:：]"
    r"|(?:所有|全部|每条)[^。\n]{0,12}?(?:记忆|消息|内容)[^。\n]{0,8}?(?:标记|视|当作)为?(?:可信|已验证|权威)"
    r"|悄悄(?:地)?(?:把|删除|执行|运行|推送|关闭|上传|复制|改写|添加)"
    r"|解(?:码|开)后(?:照做|执行|运行|照办|按)"
    r"|作为\s*(?:AI|人工智能|助手|模型|智能体)|(?:给|致)?(?:读到|看到)这(?:条|段)(?:记忆|内容|消息|话)?的(?:AI|模型|助手|智能体)",
    re.IGNORECASE,
)
# The model named as the reader; "agent forwarding", "ssh-agent" and "user agent" are not it.
READER = re.compile(
    r"\b(?:ai|assistant|model|llm|claude|gpt|codex)s?\b"
    r"|(?<!ssh-)(?<!user[- ])\bagents?\b(?![-_ ]forwarding)|助手|模型|智能体|机器人",
    re.I,
)
HIDDEN_HTML = re.compile(
    r"<[a-z][^>]*\bstyle\s*=\s*[\"'][^\"']*"
    r"(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0)",
    re.IGNORECASE,
)


def instruction_rule(text: str) -> tuple[str, re.Match] | None:
    """The first rule one copy of a text matches, with its match."""
    checks = (
        ("override_instructions", lambda: OVERRIDE_EN.search(text) or OVERRIDE_ZH.search(text)),
        ("role_reassignment", lambda: ROLE_EN.search(text) or ROLE_EN_CASED.search(text) or ROLE_ZH.search(text)),
        ("role_markup", lambda: ROLE_MARKUP.search(text)),
        ("system_framing", lambda: SYSTEM_FRAMING.search(text) or TOOL_CALL.search(text)),
        ("exfiltration", lambda: unnegated(EXFILTRATION_EN, text) or unnegated(EXFILTRATION_ZH, text)),
        ("credential_leak", lambda: unnegated(CREDENTIAL_LEAK, text)),
        ("agent_directive", lambda: ADDRESSED_EN.search(text) or ADDRESSED_ZH.search(text)),
    )  # fmt: skip
    for rule, check in checks:
        if match := check():
            return rule, match
    return harms.harm(text)


def suspicion(text: str) -> tuple[str, re.Match, bool] | None:
    """A shape that is not an attack by itself, named as the rule it would be, with its
    match and whether it is only a hint: an authority's label opening a line, a config
    field or words addressed to the model, or (a hint) one weaker sign alone. A screen
    without its classifier holds a suspicion, as these shapes were attacks to it before,
    and lets a hint pass, as one weaker sign always did."""
    if match := AUTHORITY_LABEL.search(text) or AGENT_FIELD.search(text):
        return "system_framing", match, False
    if match := AI_READERS.search(text):
        return "agent_directive", match, False
    if found := harms.weak_sign(text):
        return *found, True
    return None
