"""Concepts: words that mean the same thing to a developer, in English and Chinese.

Lexical recall misses a memory written in other words than the question ("lockfile" vs
"package-lock.json", "缓存" vs "cache"). A small, general software-engineering glossary
closes the commonest gaps without a model: a query word that belongs to a concept matches
any of the concept's phrasings, in either language. It is deliberately conservative —
only words that are interchangeable in a developer's notes — because every expansion also
widens what can match.

A query becomes *units*: a concept (any phrasing matches) or a single term. Recall ranks
and measures coverage over units.
"""

from __future__ import annotations

import functools

from memories.retrieval.analysis import index_terms, query_terms

# One row per concept; the first phrase names it. Phrases are analysed like any text, so
# plurals, tenses and CJK words need no listing.
GLOSSARY: tuple[tuple[str, ...], ...] = (
    ("pull request", "pr", "merge request", "合并请求", "拉取请求"),
    ("merge", "merging", "合并", "合入"),
    ("branch", "分支"),
    ("commit", "提交"),
    ("force-push", "force push", "强推", "强制推送"),
    ("rebase", "变基"),
    ("repository", "repo", "仓库", "代码库"),
    ("code review", "review", "reviewer", "评审", "代码审查"),
    ("test", "tests", "testing", "spec", "测试", "单测", "单元测试"),
    ("lint", "linter", "linting", "代码检查"),
    ("format", "formatter", "formatting", "格式化"),
    ("type check", "typecheck", "mypy", "类型检查"),
    ("continuous integration", "ci", "pipeline", "流水线", "持续集成"),
    ("deploy", "deployment", "release", "ship", "rollout", "部署", "发布", "上线"),
    ("rollback", "roll back", "revert", "回滚", "回退"),
    ("environment", "env", "环境"),
    ("staging", "预发", "预发布", "测试环境"),
    ("production", "prod", "生产", "生产环境", "线上"),
    ("configuration", "config", "settings", "配置", "设置"),
    ("environment variable", "env var", "环境变量"),
    ("secret", "credential", "credentials", "password", "token", "密钥", "凭证", "密码"),
    ("database", "db", "数据库"),
    ("table", "数据表"),
    ("column", "field", "字段"),
    ("schema", "模式", "表结构"),
    ("migration", "migrations", "迁移", "数据库迁移"),
    ("index", "索引"),
    ("query", "sql", "查询"),
    ("transaction", "事务"),
    ("cache", "caching", "缓存"),
    ("expiry", "expire", "expiration", "ttl", "过期", "过期时间", "有效期"),
    ("queue", "message queue", "broker", "队列", "消息队列"),
    ("scheduled job", "cron", "scheduler", "schedule", "定时任务", "调度"),
    ("background job", "worker", "task queue", "后台任务", "异步任务"),
    ("backfill", "re-run", "rerun", "回填", "补数", "重跑"),
    ("log", "logs", "logging", "日志"),
    ("monitoring", "metrics", "alert", "alerting", "监控", "告警", "指标"),
    ("on-call", "oncall", "值班"),
    ("incident", "outage", "事故", "故障"),
    ("error", "errors", "exception", "failure", "错误", "报错", "异常"),
    ("timeout", "timed out", "超时"),
    ("retry", "retries", "重试"),
    ("rate limit", "throttle", "throttling", "限流"),
    ("performance", "slow", "latency", "性能", "延迟"),
    ("memory leak", "内存泄漏"),
    ("dependency", "dependencies", "package", "library", "第三方库", "依赖", "三方库"),
    ("lockfile", "lock file", "package-lock", "pnpm-lock", "yarn.lock", "uv.lock", "锁文件"),
    ("upgrade", "bump", "update", "升级", "更新"),
    ("version", "版本"),
    ("license", "licence", "许可证", "协议"),
    ("container image", "docker image", "image", "镜像"),
    ("container registry", "registry", "镜像仓库", "制品库"),
    ("container", "docker", "容器"),
    ("kubernetes", "k8s", "集群"),
    ("api", "endpoint", "接口"),
    ("api client", "sdk", "client", "客户端"),
    ("request", "请求"),
    ("response", "响应", "返回"),
    ("validation", "validate", "校验", "验证"),
    ("authentication", "auth", "login", "sign in", "认证", "登录", "鉴权"),
    ("permission", "authorization", "access control", "权限"),
    ("user interface", "ui", "frontend", "front-end", "界面", "前端"),
    ("backend", "back-end", "server", "后端", "服务端"),
    ("component", "组件"),
    ("style", "css", "样式"),
    ("translation", "translate", "translated", "i18n", "localization", "locale", "文案", "翻译", "国际化", "多语言"),
    ("date", "dates", "time zone", "timezone", "日期", "时区"),
    ("documentation", "docs", "readme", "文档"),
    ("changelog", "release notes", "变更日志", "更新日志"),
    ("naming", "naming convention", "命名", "命名规范"),
    ("directory", "folder", "path", "目录", "文件夹", "路径"),
    ("file", "文件"),
    ("script", "脚本"),
    ("command", "命令", "指令"),
    ("install", "installation", "安装"),
    ("build", "compile", "构建", "编译"),
    ("bundle", "bundler", "打包"),
    ("package manager", "包管理器"),
    ("virtual environment", "venv", "virtualenv", "虚拟环境"),
    ("async", "asynchronous", "异步"),
    ("sync", "synchronous", "同步"),
    ("thread", "threads", "线程"),
    ("concurrency", "parallel", "并发", "并行"),
    ("lock", "mutex"),
    ("backup", "备份"),
    ("restore", "恢复"),
    ("delete", "drop", "truncate", "remove", "删除", "清空"),
    ("destructive", "dangerous", "risky", "危险", "高危"),
    ("preference", "prefer", "偏好", "喜欢"),
    ("decision", "decided", "决定", "决策"),
    ("constraint", "rule", "约束", "规则"),
    ("convention", "guideline", "standard", "规范", "约定"),
    ("meeting", "standup", "会议", "站会"),
    ("customer", "客户"),
    ("invoice", "billing", "发票", "账单"),
    ("payment", "pay", "支付", "付款"),
    ("email", "mail", "邮件", "邮箱"),
    ("notification", "notify", "push notification", "通知", "推送"),
    ("search", "搜索", "检索"),
    ("data warehouse", "warehouse", "dbt", "数仓", "数据仓库"),
    ("data pipeline", "etl", "elt", "数据管道"),
    ("model", "模型"),
    ("feature flag", "flag", "toggle", "功能开关", "开关"),
    ("virtualization", "virtualised", "virtualized", "virtual list", "虚拟列表", "虚拟滚动"),
    ("render", "rendering", "渲染"),
    ("page", "页面"),
    ("button", "按钮"),
    ("string", "text", "字符串", "文本"),
    ("hardcode", "hard-code", "hardcoded", "写死", "硬编码"),
    ("progress", "status", "进度", "状态"),
    ("next step", "todo", "to do", "下一步", "待办"),
    ("task", "ticket", "issue", "任务", "工单"),
    ("chat", "slack", "聊天"),
    ("ask", "confirm", "approval", "询问", "确认", "审批"),
    # General infrastructure and tooling vocabulary.
    ("proxy", "reverse proxy", "代理", "反向代理"),
    ("load balancer", "负载均衡"),
    ("certificate", "cert", "tls certificate", "ssl certificate", "证书"),
    ("domain", "domain name", "dns", "域名"),
    ("port", "端口"),
    ("network", "networking", "网络"),
    ("firewall", "防火墙"),
    ("encryption", "encrypt", "encrypted", "加密"),
    ("hash", "hashing", "hashed", "哈希", "散列"),
    ("signature", "signing", "签名"),
    ("upload", "上传"),
    ("download", "下载"),
    ("debug", "debugging", "调试"),
    ("stack trace", "traceback", "堆栈", "调用栈"),
    ("refactor", "refactoring", "重构"),
    ("comment", "comments", "code comment", "注释"),
    ("terminal", "command line", "cli", "终端", "命令行"),
    ("editor", "ide", "编辑器"),
    ("screenshot", "截图"),
    ("benchmark", "benchmarking", "基准测试"),
    ("load test", "stress test", "压测", "压力测试"),
    ("duplicate", "dedup", "deduplicate", "deduplication", "重复", "去重"),
    ("partition", "partitioning", "partitioned", "分区"),
    ("quota", "配额"),
    ("integer", "int", "整数"),
    ("floating point", "float", "浮点", "浮点数"),
    ("rounding", "round", "四舍五入", "舍入"),
    ("memory usage", "ram", "内存"),
    ("cpu", "处理器"),
    ("disk", "磁盘", "硬盘"),
    ("event", "events", "事件"),
    ("message", "messages", "消息"),
    ("subscription", "subscribe", "订阅"),
    ("template", "模板"),
    ("plugin", "extension", "插件", "扩展"),
)  # fmt: skip

Alternative = tuple[str, ...]  # the index terms of one phrasing: all must match
Unit = tuple[Alternative, ...]  # a concept's phrasings, or one single-term phrasing


@functools.lru_cache(maxsize=1)
def _alternatives_by_concept() -> tuple[Unit, ...]:
    concepts = []
    for phrases in GLOSSARY:
        seen: dict[Alternative, None] = {}
        for phrase in phrases:
            terms = index_terms(phrase)
            if terms:
                seen.setdefault(tuple(sorted(terms)))
        concepts.append(tuple(seen))
    return tuple(concepts)


@functools.lru_cache(maxsize=1)
def _triggers() -> list[tuple[Alternative, Unit]]:
    """Every phrasing that can name its concept in a query, longest first, so "pull
    request" is read as one concept before "request" is read as another."""
    pairs = [(alternative, unit) for unit in _alternatives_by_concept() for alternative in unit]
    return sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0]))


@functools.lru_cache(maxsize=4096)
def query_units(query: str) -> tuple[Unit, ...]:
    """The query as concepts plus leftover single terms, in query order."""
    terms = query_terms(query)
    position = {term: index for index, term in enumerate(terms)}
    remaining = list(terms)
    placed: list[tuple[int, Unit]] = []
    for alternative, unit in _triggers():
        if any(unit == other for _, other in placed) or not set(alternative) <= set(remaining):
            continue
        placed.append((min(position[term] for term in alternative), unit))
        remaining = [term for term in remaining if term not in alternative]
    placed += [(position[term], ((term,),)) for term in remaining]
    # In the order the query says them, which recall's coverage measure relies on.
    return tuple(unit for _, unit in sorted(placed, key=lambda pair: pair[0]))


def single_term(unit: Unit) -> str | None:
    """The term of a plain single-term unit (not a concept), else None."""
    if len(unit) == 1 and len(unit[0]) == 1:
        return unit[0][0]
    return None
