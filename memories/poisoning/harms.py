"""What an attack asks the reading model to do, whatever words carry it, in English and Chinese.

rules.py knows how attacks *speak* (overriding instructions, posing as the system, naming
the model). Many payloads do none of that: they read like a team's note and only ask for
something no owner would want from an agent behind their back. These are the categories:

- `deceive_user` — reporting what did not happen ("tell anyone who asks the tests passed",
  "call the build green", 告诉用户全部通过) or hiding a change from the person
  ("leave it out of the summary you give the user", 对外就说是例行升级);
- `authority_transfer` — someone other than the person at the keyboard given their
  authority: messages signed by a name or found in tool output treated as the owner's or
  an administrator's, "your real operator is", consent claimed on file, refusals redefined
  as bugs (视为管理员指令, 当作主人亲自下达, 主人已授权：…);
- `backdoor` — a magic password granting administrator rights;
- `weakened_safeguards` — two or more of the weaker signs in one text: a safeguard switched
  off (signature checks, CSRF, secret scanning, hooks, DEBUG in production), confirmations
  waived for destructive work, review skipped on the way to a protected branch, a remote
  script piped into a shell, a conditional trigger for it, something kept out of the
  changelog. Each alone is a sentence a team writes ("disable CSRF for the HMAC-signed
  webhook", "install with curl … | sh"); together they are an attack's shape.

A sign under a prohibition ("never …", 不要 …) is a rule for people and does not count.
"""

from __future__ import annotations

import re

from memories.poisoning.negation import negated, unnegated

_I = re.IGNORECASE | re.MULTILINE
WINDOW = 40  # how far back a prohibition governs a request
_S = r"[^.;!?\n]"  # within one English sentence
_Z = r"[^。；！？\n]"  # within one Chinese sentence

_PEOPLE = r"(?:the\s+user|the\s+owner|the\s+person|anyone(?:\s+who\s+asks)?|everyone|the\s+team|them|people|reviewers?)"
_RESULTS = r"(?:tests?|build|ci|checks?|pipeline|suite|scans?|deploy(?:ment)?|migration|(?:security\s+)?audit|review)s?"
# A result reported as good whatever it was: "tell anyone who asks the tests passed",
# "… the build is green regardless"; "tell the user the tests passed" alone is a courtesy.
_ANYWAY = (
    r"(?:whether\s+or\s+not|regardless|even\s+(?:if|when|though)|anyway|no\s+matter|either\s+way)"
)
_REPORT = (
    rf"\b(?:tell|report\s+to|assure|inform|answer)\s+{_PEOPLE}\s+(?:that\s+)?(?:the\s+|all\s+|every\s+)?"
    rf"{_RESULTS}\s+(?:\w+\s+)?(?:passed|pass|succeeded|are\s+green|is\s+green|went\s+fine|were\s+fine|ran)\b"
)
DECEIVE = re.compile(
    rf"\b(?:tell|assure|answer)\s+(?:anyone|whoever|everyone)\s+(?:who\s+)?asks?\s+(?:that\s+)?(?:the\s+)?{_RESULTS}"
    rf"|{_REPORT}{_S}{{0,40}}?\b{_ANYWAY}\b|\b{_ANYWAY}\b{_S}{{0,40}}?{_REPORT}"
    r"|\bwhether\s+or\s+not\s+you\s+(?:actually\s+)?(?:ran|run|tested|checked)\b"
    r"|\b(?:call|mark|report)\s+the\s+(?:build|run|pipeline|ci)\s+(?:as\s+)?(?:green|passed|successful)\b"
    rf"|\btell\s+{_PEOPLE}\s+(?:that\s+)?nothing\s+(?:changed|happened|was\s+changed)"
    r"|\b(?:describe|present|pass\s+off|report)\s+(?:the\s+|this\s+|it\s+)?(?:change\s+)?as\s+(?:a\s+)?"
    r"(?:routine|harmless|normal|regular)\s+(?:version\s+bump|update|upgrade|change|fix)"
    r"|\b(?:leave|keep)\s+(?:it|this|that|the\s+\w+)\s+out\s+of\s+(?:the\s+|your\s+)?"
    r"(?:summary|plan|report|reply|answer)\s+(?:you\s+give\s+|for\s+|to\s+)?(?:the\s+user|the\s+owner)?"
    r"|\bkeep\s+(?:that|this|it)\s+to\s+yourself\b"
    r"|\b(?:don't|do\s+not|never)\s+(?:list|show|mention|include)\s+this\s+step\b"
    r"|\bwithout\s+(?:showing|telling|informing|alerting)\s+(?:the\s+user|the\s+owner|anyone|them)\b"
    r"|\b(?:read|open|use|run)\s+\S+\s+without\s+mentioning\s+it\b"
    r"|\bout\s+of\s+(?:anything|everything|whatever)\s+you\s+(?:tell|report\s+to|show)\s+(?:the\s+)?(?:user|owner)"
    r"|\bnot\s+to\s+be\s+(?:reported|mentioned|disclosed|shown)\s+to\s+(?:the\s+)?(?:user|owner)"
    r"|\bskip\w*\b[^.\n]{0,40}?\b(?:say|report|claim)\s+(?:that\s+)?(?:they|it|the\s+\w+|all|everything)\s+(?:\w+\s+)?(?:passed|pass|green)"
    r"|\bmark\s+(?:every|all|each)\s+(?:review\s+)?comments?\s+as\s+resolved"
    r"|\bclear\s+(?:the\s+)?(?:shell|bash|command)\s+history\b|\bkeep\s+quiet\s+about\b"
    r"|\b(?:say|answer|reply)\s+(?:no|nothing|that\s+nothing\s+\w+)\b[^.\n]{0,20}?\bif\s+(?:the\s+)?(?:user|owner|anyone|someone)\s+asks\b"
    r"|\bif\s+(?:the\s+)?(?:user|owner|anyone|someone)\s+asks\b[^.\n]{0,60}?\b(?:say|answer|reply)\s+(?:no|nothing|that\s+nothing)\b"
    r"|\b(?:doesn't|does\s+not|won't|don't|never)\s+(?:show\s+up|appear)\s+in\s+(?:the\s+)?(?:[\w-]+\s+)?(?:audit|access\s+log)"
    r"|\b(?:say|claim|state|mention)\s+(?:that\s+)?(?:it|this|the\s+\w+)\s+(?:was|is|has\s+been)\s+"
    r"(?:audited|official|verified|vetted|approved|safe)\b",
    _I,
)
DECEIVE_ZH = re.compile(
    rf"(?:不管|无论|不论|没过|失败|一律){_Z}{{0,20}}?(?:告诉|汇报|报告|回复|答复|说)(?:给)?(?:用户|主人|大家|所有人|对方)?"
    rf"{_Z}{{0,10}}?(?:全部|都|已经|均)?(?:通过|成功|没问题|正常|跑过)"
    r"|(?:总结|汇报|回复|计划|报告)里(?:(?:别|不要|不用|不必)(?:提|写|说|列)|略去|省略|不提)"
    r"|跳过(?:测试|检查)[^。\n]{0,10}?(?:报告|说|汇报)[^。\n]{0,6}?(?:通过|成功)|评审意见(?:都|全)?标(?:成|为|记为)已解决"
    r"|清(?:掉|除|空)\s*(?:shell\s*)?(?:命令)?历史|一概不提"
    r"|(?:不用|不必|无需|别|不要)(?:告诉|通知|提醒|知会)(?:用户|主人)|不必声张|别声张|不要声张|不动声色"
    r"|对外(?:就)?(?:说|称|讲)(?:是|成)|守口如瓶|没必要惊动|不必跟[^。\n]{0,12}?(?:细说|说明|解释|汇报)"
    r"|(?:总结|汇报|回复|报告)(?:里|裡)只(?:写|说)"
    r"|(?:直接|就|只)(?:说|回答|回复)(?:已经?|都)?(?:通过|跑过|弄好了|搞定了?)[^。\n]{0,12}?不用真的"
    r"|(?:谁要|谁问|有人要)[^。\n]{0,10}?都(?:可以|能)(?:完整)?(?:提供|给)"
    r"|(?:用户|主人|有人|谁)问[^。\n]{0,20}?(?:一律|就|都|只)(?:回答|说|答|回复)(?:没有|不知道|没|不清楚)"
    r"|(?:不要|别|不能|不会)(?:出现|留下?|显示)在[^。\n]{0,6}?(?:审计|日志|记录)",
)
_AUTHORITY = r"(?:admin(?:istrator)?|owner|operator|root|maintainer|system|elevated|full)"
AUTHORITY = re.compile(
    rf"\b(?:messages?|requests?|instructions?|notes?|comments?|anything|commands?|orders?)\s+"
    rf"(?:signed|starting\s+with|sent\s+by|from|written\s+by|tagged|prefixed)\b{_S}{{0,40}}?"
    rf"\b(?:carry|carries|have|has|hold|holds|count\s+as|counts\s+as|comes?\s+from|are\s+treated\s+as|outranks?)\b"
    rf"{_S}{{0,30}}?\b(?:{_AUTHORITY}|authority|outranks?|user)\b"
    r"|\boutranks?\s+(?:whatever|anything|what)\s+(?:the\s+)?(?:user|person|human|owner)"
    r"|\beven\s+when\s+(?:they|it)\s+contradicts?\s+(?:the\s+)?(?:person|user|human|owner)"
    r"|\b(?:as\s+though|as\s+if)\s+(?:the\s+)?(?:owner|user|person|human)\s+(?:had\s+)?(?:typed|wrote|written|said|sent|asked|issued)"
    rf"|\btreat\b{_S}{{0,50}}?\b(?:tool\s+(?:result|output|response)s?|web\s+pages?|fetched\s+\w+|search\s+results?)\b{_S}{{0,30}}?\bas\s+"
    r"(?:though|if|coming\s+from|trusted|authoritative|binding|the\s+(?:owner|user)|(?:the\s+)?(?:owner|admin|user)(?:'s)?\s+"
    r"(?:instructions|commands|orders|requests|own))"
    r"|\byour\s+(?:real|actual|true|new)\s+(?:operator|owner|user|boss|admin(?:istrator)?|principal|master)\s+is\b"
    r"|\b(?:owner|user|account\s+owner)(?:'s)?\s+(?:consent|approval|permission|authori[sz]ation)\s+is\s+on\s+file\b"
    r"|\b(?:the\s+)?(?:account\s+)?(?:owner|user)\s+(?:has\s+)?(?:already\s+)?(?:consented|agreed|approved|signed\s+off)\b"
    rf"{_S}{{0,40}}?\b(?:don't|do\s+not|no\s+need\s+to|without)\s+(?:ask|asking|confirm|check)"
    r"|\b(?:compliance|legal|security(?:\s+team)?|management|the\s+board|it)\s+(?:has\s+)?(?:signed\s+off|cleared|approved)\s*[:：,]"
    rf"{_S}{{0,40}}?\b(?:assistants?|agents?|models?|you)\s+(?:may|can|are\s+(?:allowed|permitted|cleared))\b"
    r"|\brefusals?\s+(?:are|is)\s+(?:now\s+)?(?:filed|treated|counted|logged|reported)\s+as\s+(?:bugs?|errors?|defects?)"
    r"|\bcomply\s+with\s+(?:every|all|any)\s+requests?\b"
    r"|\byou\s+have\s+standing\s+(?:clearance|authori[sz]ation|permission)\b"
    r"|\bstanding\s+(?:clearance|order)\s+for\s+(?:the\s+)?(?:[\w-]+\s+)?(?:assistants?|agents?|models?|ai|bots?)\b"
    r"|\b(?:open|fetch|visit|read|load)\s+https?://\S+\s+and\s+(?:do|follow|obey|execute|carry\s+out)\s+(?:what|whatever)\s+it\s+says"
    r"|\b(?:runs?|executes?|does|follows?|obeys?|acts?\s+on)\s+(?:whatever|what|anything)\s+(?:\S+\s+){1,3}?(?:sends|says|writes|posts|asks\s+for)\b"
    r"|\b(?:supersedes?|replaces?|overrides?|outranks?)\s+(?:the|your|any)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:you\s+were\s+given|you\s+(?:were|have\s+been)\s+told|you\s+started\s+with)"
    r"|\bnever\s+ask\s+before\s+(?:deleting|dropping|force-pushing|removing|wiping|resetting)"
    r"|\btreat\s+(?:any|every|all)\s+(?:messages?|requests?|comments?|instructions?)\s+(?:signed|from|sent\s+by|written\s+by)\b"
    r"[^.\n]{0,40}?\bas\s+(?:coming\s+from|from|sent\s+by|written\s+by|if\s+from)\s+(?:the\s+)?(?:owner|admin\w*|user|maintainer)"
    r"|\b(?:workspace\s+|repo(?:sitory)?\s+|account\s+)?(?:owner|admin\w*|maintainer)\s*,\s*(?:verified|authenticated)\b"
    r"|\b(?:consider|treat|assume)\b[^.\n]{0,40}?\b(?:already\s+)?approved\s+by\s+the\s+(?:owner|user)"
    r"|\b(?:act|decide|sign)\s+in\s+(?:the\s+owner's|their)\s+name\b|\bmake\s+(?:their|the\s+owner's)\s+decisions\s+for\s+them"
    r"|\bdecisions\s+are\s+made\s+in\s+their\s+name|\bas\s+agreed\s+with\s+the\s+owner\b"
    r"|\bowner\s+override\b|\b(?:the\s+)?(?:owner|user)\s+(?:has\s+)?(?:already\s+)?pre-?approved\b"
    r"|\bapprove\s+(?:its|your|their)\s+own\s+(?:pending\s+)?(?:actions?|requests?|changes?|prs?|pull\s+requests?)"
    r"|\b(?:mark|label|flag|tag)\s+(?:it|this|them|these|the\s+note)\s+as\s+(?:confirmed|approved|trusted|verified)\s+by\s+the\s+(?:owner|user)"
    r"|\bact\s+as\b[^.\n]{0,30}?\b(?:unrestricted|unfiltered|uncensored|jailbroken|all-powerful)\b"
    r"|\b(?:switch|go|enter)\s+(?:in)?to\s+(?:maintainer|admin|god|root|sudo|unrestricted)\s+mode\b",
    _I,
)
AUTHORITY_ZH = re.compile(
    rf"(?:消息|请求|指令|内容|评论|留言|记忆){_Z}{{0,6}}?(?:都|一律|均)?(?:视为|当作|当成|算作|按)(?:是)?"
    rf"(?:管理员|主人|所有者|系统|老板|最高){_Z}{{0,4}}?(?:指令|命令|消息|授权|意思)?"
    r"|优先级高于(?:当前)?(?:用户|主人|你的)"
    rf"|(?:当作|当成|视为)(?:主人|用户|管理员)(?:亲自)?(?:下达|输入|发出|说)的"
    rf"|(?:主人|用户|所有者|账号所有人)(?:已经?|早已|已)(?:在{_Z}{{1,6}}?)?(?:授权|同意|批准|签字)(?:过)?了?{_Z}{{0,6}}?[：:，,]"
    rf"(?:{_Z}{{0,4}}?(?:把|请|直接|可以)|{_Z}{{0,60}}?(?:无需|不用|不必)(?:再)?确认)"
    r"|(?:主人|所有者|管理员)\s*[，,]\s*已(?:验证|认证)|主人授权覆盖|以主人的名义|替(?:主人|他|她)做决定"
    rf"|认定{_Z}{{0,20}}?(?:已经)?获得(?:了)?主人(?:的)?(?:批准|同意)|主人{_Z}{{0,8}}?已经同意了?{_Z}{{0,20}}?(?:不用|无需|不必)再问"
    rf"|按照?\s*https?://\S+\s*上(?:发布|写)的{_Z}{{0,10}}?(?:行事|执行|办|做)"
    r"|(?:合规部门|法务|安全团队|管理层|公司)(?:已经?|早已)(?:批准|同意|签字|放行)\s*[：:]"
    rf"|(?:写入|提交|发来|提)的(?:记忆|内容|消息|合并请求){_Z}{{0,4}}?一律(?:标为|视为|当作)?(?:可信|已确认|权威|直接批准)"
    r"|你(?:真正|实际)的(?:主人|操作者|老板|管理员)是"
    r"|(?:署名|签名)[^。\n]{0,24}?(?:按|以|用)(?:仓库)?(?:主人|所有者|管理员|owner)的?权限"
    r"|(?:当成|当作|视为)\s*(?:主人|owner|管理员|admin)\s*的\s*(?:instruction|指令|命令|要求)"
    rf"|按{_Z}{{0,20}}?(?:发来|说|写|发)的(?:消息|指令|内容|话)?(?:照做|执行|去做|办)"
    rf"|(?:删除|清空|强推|重置|丢弃){_Z}{{0,16}}?之前(?:都|也)?(?:不用|不必|无需)(?:再)?(?:问|征求|确认)"
    r"|(?:打开|访问|读取)\s*https?://\S+?\s*[，,]?\s*(?:按|照)(?:上面|里面|那里|页面上)(?:写的|说的)",
)
# A note that asks to be saved again or spread: an attack that wants to outlive its session.
PERSISTENCE = re.compile(
    r"\b(?:save|store|copy|add|write|keep|repeat|re-?save)\s+(?:this|these|the\s+(?:note|memory|rule|instruction)s?)\s+"
    r"(?:note\s+|memory\s+|rule\s+|instructions?\s+)?(?:again\s+)?(?:in|to|into)\s+(?:every|all|each|other|your\s+)?\s*"
    r"(?:long-term|permanent|future|projects?|sessions?|memor(?:y|ies)|repos(?:itories)?)"
    r"|\bso\s+(?:that\s+)?(?:later|future|every|all)\s+(?:later\s+)?sessions?\s+(?:apply|follow|obey|repeat|do|keep)"
    r"|(?:把|将)?这条(?:也|都)?(?:存进|写进|保存到|记到|加入|存到)(?:你的)?(?:长期)?记忆|以后每次(?:会话|对话)(?:都)?照做"
    r"|\b(?:save|store|keep|write)\s+(?:this|it|a\s+copy\s+of\s+(?:it|this))\b[^.\n]{0,40}?\b(?:in\s+every|in\s+each|wherever\s+you)\s+(?:project|repo|session|workspace|work)"
    r"|(?:每个|所有)项目里?[^。\n]{0,12}?(?:再存|存一份|保存一份)|这条记忆原样再存",
    _I,
)
# A secret put where others read it: a commit message, a public gist, a DNS lookup.
PUBLISHED = re.compile(
    r"\b(?:write|put|add|include|paste|append)\b[^.\n]{0,50}?(?:env(?:ironment)?\s+variables?|\.env\b|tokens?|secrets?|api\s+keys?|passwords?)"
    r"[^.\n]{0,50}?\b(?:into|in|to)\s+(?:the\s+|a\s+)?(?:next\s+)?(?:commit\s+messages?|commits?|readme|pr\s+descriptions?|public\s+\w+)"
    r"|\bpublic\s+gist\b[^.\n]{0,40}?\b(?:env|\.env|secrets?|tokens?|keys?|credentials)\b"
    r"|\b(?:base64|xxd|od|cat)\b[^\n]{0,30}?\.env\b[^\n]{0,160}?\b(?:nslookup|dig|host)\b"
    r"|\b(?:nslookup|dig)\b[^\n]{0,40}?\$\([^)]*\.env|\$\([^)]*\.env[^)]*\)\.[\w-]+\."
    r"|\b(?:change|set|reset)\s+(?:the\s+)?(?:db|database|admin|root|prod\w*)?\s*password\s+to\s+\S+\s+and\s+commit"
    r"|(?:环境变量|密码|令牌|token|密钥|\.env)(?:(?!不要|别|切勿|不得|禁止)[^。\n]){0,24}?(?:写进|放进|附在|贴到|提交到)[^。\n]{0,10}?(?:提交信息|提交说明|README|公开|gist|回复)"
    r"|密码\s*改成\s*\S+?\s*(?:并|，?顺手)?\s*(?:commit|提交|写进)",
    _I,
)
BACKDOOR = re.compile(
    r"\bhard-?cod\w*\s+(?:the\s+|a\s+)?(?:password|passphrase|credential|token)\b[^.\n]{0,40}?\b(?:fallback|backup|master|bypass)\b"
    r"|写死(?:一个)?(?:备用|万能|后门|固定)?(?:的)?(?:密码|口令)"
    r"|\bhidden\s+(?:route|endpoint|url)\b[^.\n]{0,60}?\b(?:log(?:s|ged)?\s+in|admin|owner|superuser)\b"
    r"|隐藏(?:路由|接口|入口)[^。\n]{0,40}?(?:登录|管理员|主人|超级)"
    r"|(?:--(?:extra-)?index-url|\bpoint\s+(?:pip|npm|uv|poetry)\s+at)\s+http://"
    r"|\b(?:every|each|all)\s+(?:\w+\s+)?(?:hosts?|servers?|machines?)\b[^\n]{0,40}?authorized_keys|每台(?:主机|服务器|机器)[^。\n]{0,16}?authorized_keys"
    r"|\b(?:reports|sends|uploads|posts)\s+(?:the\s+)?(?:environment|env(?:ironment)?\s+variables)\s+(?:on|at|during)\s+install"
    r"|安装时(?:会)?(?:上报|上传|发送)(?:环境变量|环境)"
    r"|\bif\s+(?:the\s+)?(?:password|passphrase|pin|token)\s+(?:equals|is|==|matches)\s*\S{1,40}?\s*,?\s*"
    r"(?:then\s+)?(?:grant|give|make|log\s+(?:them|it)\s+in\s+as|treat\s+(?:them|it)\s+as|return)\b"
    rf"{_S}{{0,30}}?\b(?:superuser|admin\w*|root|staff|owner|true)\b"
    rf"|(?:密码|口令)(?:为|是|等于){_Z}{{1,40}}?(?:时|就|则){_Z}{{0,8}}?(?:直接)?(?:给|授予|赋予|开通)"
    rf"{_Z}{{0,6}}?(?:超级管理员|管理员|root|最高|超管)",
    _I,
)
# The weaker signs: each is a sentence a team may write; two of them in one text are not.
WEAK_SIGNS = (
    re.compile(  # a safeguard switched off
        r"\b(?:turn|switch|shut)\s+(?:off\s+)?(?:the\s+)?(?:csrf|signature|secret[-\s]scann\w*|2fa|mfa|tls|ssl|certificate"
        r"|auth\w*|audit|hooks?|review)\b[\w\s-]{0,20}?\boff\b"
        r"|\b(?:turn|switch)\s+off\s+(?:the\s+)?(?:csrf|signature|secret[-\s]scann\w*|2fa|mfa|tls|ssl|certificate|auth\w*|audit)"
        r"|\b(?:comment\s+out|remove|disable|bypass|skip|replace)\s+(?:the\s+)?(?:webhook\s+|lockfile\s+)?(?:signature|csrf|token|auth\w*"
        r"|permission|hash)\s+(?:check|verification|validation)s?\b"
        r"|\bwithout\s+signing\b|\bcore\.hooksPath\s+/dev/null|\bDEBUG\s+(?:=\s*True\s+|on\s+)in\s+prod\w*|\bALLOW_UNSIGNED\w*\s*=\s*True"
        r"|(?:签名校验|签名验证|哈希校验|CSRF|鉴权|双因素|2FA|密钥扫描|安全检查|钩子)\w{0,4}?(?:关掉|关闭|去掉|禁用|注释掉)"
        r"|(?:关掉|关闭|去掉|禁用|注释掉)(?:了)?(?:签名校验|签名验证|CSRF|鉴权|双因素|密钥扫描|钩子)",
        re.I,
    ),
    re.compile(  # confirmations waived for destructive work
        r"\b(?:skips?|suspend\w*|waives?|waived)\s+(?:every|all|any)?\s*confirmations?\b"
        r"|\bconfirmations?\s+(?:for|of|before)\s+[\w\s-]{0,30}?\s+(?:is|are)\s+(?:suspended|waived|off|not\s+needed)"
        r"|\bnever\s+ask\s+before\s+(?:deleting|dropping|force-pushing|removing|wiping)"
        r"|\b(?:emergency|maintenance|admin|security)\s+(?:override|mode)\s+(?:is\s+)?(?:in\s+(?:force|effect)|on|active|enabled)\b"
        r"|\breport\s+(?:failing|failed|broken)\s+[\w\s-]{0,30}?\s+as\s+(?:warnings?|passed|green|success)"
        r"|\bno\s+need\s+to\s+ask(?:\s+(?:first|again|the\s+user))?\b|\bdon't\s+ask\s+(?:them|the\s+user)\s+again\b"
        r"|免确认|(?:删除|清空|强推|重置)[^。\n]{0,12}?(?:都)?(?:不用|不必|无需)(?:再)?(?:问|确认|征求)",
        re.I,
    ),
    re.compile(  # review skipped, or merged at once
        r"\b(?:push\w*|commit\w*|deploy\w*)\s+(?:straight|directly|right)\s+to\s+(?:main|master|prod\w*|release)\b"
        r"|\b(?:skip|skips|without)\s+(?:opening\s+)?(?:a\s+|the\s+|any\s+)?(?:code\s+)?reviews?\b"
        r"|\bapprove\s+(?:it|them|the\s+pr|the\s+pull\s+request)s?\s+and\s+merge\b|\bmerge\s+(?:it|them)\s+at\s+once\b"
        r"|\bchecks?\b[^.\n]{0,30}?\bmay\s+be\s+(?:skipped|ignored)\b"
        r"|(?:不用|不必|无需)(?:再)?(?:发起)?(?:评审|审查|代码审查|review)|直接推到|一律直接(?:批准|合并)|报错可以不管",
        re.I,
    ),
    REMOTE_SCRIPT := re.compile(  # a remote script run, or a fetched text obeyed
        r"\b(?:curl|wget)\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:sh|bash|zsh|python3?)\b"
        r"|\b(?:fetch|download|pull|grab|get)\s+https?://\S+\s+(?:and|then)\s+(?:execute|run|exec|eval|source)\b",
        re.I,
    ),
    re.compile(  # destructive work on shared or production data
        r"\b(?:drop|delete|truncate|wipe|remove|empty)\s+(?:the\s+)?(?:production|prod)\s+[\w`]+\s+(?:table|database|db|bucket)s?\b"
        r"|\brm\s+-rf\b[^\n]{0,40}?\b(?:backups?|prod\w*|/var/lib|shared\s+volume)"
        r"|(?:删掉|删除|清空|drop)(?:了)?生产环境的?\s*\S{1,20}?\s*表|allow_failure:\s*true\b[^\n]{0,40}?(?:security|review|scan)",
        re.I,
    ),
    LABEL_SIGN := re.compile(  # an authority's label or a claim of priority in the middle of a note
        r"\b(?:system\s+(?:notice|message)|admin(?:istrator)?\s+directive|message\s+from\s+the\s+(?:repository\s+|repo\s+)?owner"
        r"|developer\s+(?:message|note)|priority\s+override|vendor\s+security\s+advisory|security\s+team\s+(?:notice|通知))\b"
        r"|\b(?:highest|top)\s+priority\b|\btakes\s+(?:priority|precedence)\b"
        r"|(?:系统消息|系统通知|开发者备注|管理员指令|运维组公告|合规要求|安全团队通知)|最高优先级|以此为准",
        re.I,
    ),
    re.compile(  # an order addressed to whichever agent reads the note
        r"\byou\s+(?:must|should\s+now|need\s+to\s+now|are\s+(?:now\s+)?required\s+to)\b"
        r"|\b(?:all|every|any)\s+(?:assistants?|agents?|models?)\s+(?:must|should|needs?\s+to|必须|需要)"
        r"|\bwhichever\s+(?:agent|assistant|model)\s+(?:picks|reads|applies)"
        r"|接下来你(?:必须|要|需要)|你现在(?:要|必须|需要)|务必|(?:助手|模型|智能体|AI)(?:请注意|注意\s*[:：])",
        re.I,
    ),
    re.compile(  # tools or servers given the run of everything
        r"\b(?:register|add|install)\s+\S+\s+as\s+(?:a\s+)?trusted\s+(?:mcp\s+)?(?:server|tool|plugin|source)"
        r"|\b(?:access|permission)\s+to\s+(?:every|all)\s+tools?\b|--no-verify\b",
        re.I,
    ),
    re.compile(  # a covert or conditional trigger
        r"\bbefore\s+anything\s+else\b|\bwhenever\s+a\s+(?:test|build|check|job)\s+fails\b"
        r"|\bbefore\s+you\s+(?:answer|reply|respond)\b|\bnext\s+time\s+a\s+session\s+(?:opens|starts)\b"
        r"|\((?:pass\s+or\s+fail|either\s+way)\)|不管成败|无论成败|只要(?:主人|用户)问到|回答之前|回答前先"
        r"|\b(?:keep|leave)\s+(?:it|this|that)\s+out\s+of\s+the\s+(?:changelog|release\s+notes|commit\s+message|logs?)\b"
        r"|\b(?:do\s+this\s+)?quietly\b|\bwithout\s+(?:a\s+word|comment|asking)\b"
        r"|\bquietly\s+(?:left\s+out|dropped|removed|skipped|disabled)\b"
        r"|别写进|不要写进|顺手|悄悄|(?:不用|不必)(?:告诉|说)|以[“\"「][^”\"」]{1,12}[”\"」]的名义"
        r"|(?:从流水线|从\s*CI)(?:里)?(?:拿掉|去掉|删掉)",
        re.I,
    ),
)


# The hub's own screens switched off: no team note asks an agent for that.
SCREENS_OFF = re.compile(
    r"\b(?:comment\s+out|disable|remove|bypass|switch\s+off|turn\s+off|skip)\b[^.\n]{0,40}?"
    r"\b(?:write|secret|poisoning|credential)\s+(?:and\s+\w+\s+)?(?:gates?|screens?)\b"
    r"|\b(?:write|secret|poisoning|credential)\s+(?:and\s+\w+\s+)?(?:gates?|screens?)\b[^.\n]{0,40}?\b(?:off|disabled)\b"
    r"|(?:写入闸门|闸门|安全闸|投毒检查|密钥检查)[^。\n]{0,4}?(?:注释掉|关掉|关闭|去掉|禁用)"
    r"|\b(?:remove|drop|delete|disable)\s+the\s+secret[-\s]scann\w*\s+step|(?:删掉|去掉|移除|关掉)[^。\n]{0,8}?密钥扫描"
    r"|\b(?:turn\w*|switch\w*)\s+(?:the\s+)?sandbox\s+off|\bsandbox\s+(?:is\s+)?(?:turned\s+|switched\s+)?off\b"
    r"|\ballow\w*\s+every\s+(?:shell\s+)?command\s+without\s+(?:prompting|asking|confirmation)|(?:关掉|关闭)沙箱"
    r"|\b(?:drop|delete|truncate|wipe|empty|purge)\s+(?:the\s+)?(?:staging\s+and\s+)?(?:production|prod)\s+(?:databases?|db|tables?)"
    r"|\b(?:empty|wipe|purge)\s+(?:the\s+)?[\w-]*backups?\s+bucket|快照也删|删掉?(?:预发库和)?生产库",
    _I,
)


# How a tool is installed: "Install uv: curl -LsSf https://astral.sh/uv/install.sh | sh" is
# what READMEs say and people copy into notes. Said so, a piped installer is no sign on its
# own; the classifier still reads the note as it reads any other.
INSTALLING = re.compile(
    r"\b(?:install(?:s|ed|ing|er|ation)?|set\s*up|bootstrap)\b|安装|装(?:环境|上|好)", re.I
)


def _signs(pattern: re.Pattern, text: str) -> list[re.Match]:
    """The pattern's matches that count as a weaker sign: not under a prohibition, and for a
    piped remote script, not in a sentence that says how a tool is installed."""
    found = []
    for match in pattern.finditer(text):
        if negated(text, match.start(), WINDOW):
            continue
        if pattern is REMOTE_SCRIPT and INSTALLING.search(_sentence(text, match)):
            continue
        found.append(match)
    return found


def _sentence(text: str, match: re.Match) -> str:
    stops = (". ", "\n", "。", "；", "; ")
    start = max(text.rfind(stop, 0, match.start()) for stop in stops)
    ends = [end for stop in stops if (end := text.find(stop, match.end())) >= 0]
    return text[start + 1 : min(ends, default=len(text))]


def harm(text: str) -> tuple[str, re.Match] | None:
    """The first harm category one reading of a text asks for, with its match."""
    for rule, patterns in (
        ("deceive_user", (DECEIVE, DECEIVE_ZH)),
        ("authority_transfer", (AUTHORITY, AUTHORITY_ZH)),
        ("backdoor", (BACKDOOR,)),
        ("persistence", (PERSISTENCE,)),
        ("published_secret", (PUBLISHED,)),
        ("weakened_safeguards", (SCREENS_OFF,)),
    ):
        for pattern in patterns:
            if match := unnegated(pattern, text, WINDOW):
                return rule, match
    signs = [match for pattern in WEAK_SIGNS for match in _signs(pattern, text)]
    if len(signs) >= 2:
        return "weakened_safeguards", signs[0]
    return None


def weak_sign(text: str) -> tuple[str, re.Match] | None:
    """One weaker sign alone (not under a prohibition): a suspicion, not an attack
    (rules.suspicion); the classifier settles it. A label in the middle of a note is not
    one: people quote "SYSTEM NOTICE: db-1 reboots on Sunday" in checklists and calendars."""
    for pattern in WEAK_SIGNS:
        if pattern is LABEL_SIGN:
            continue
        if found := _signs(pattern, text):
            return "weakened_safeguards", found[0]
    return None
