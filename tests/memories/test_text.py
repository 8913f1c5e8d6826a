"""Normalization, fingerprints, terms, near-duplicates and contradictions (English, Chinese,
and the mix of both that many users write)."""

from __future__ import annotations

import hashlib

import pytest

from memories.text import (
    CONTRADICTION_THRESHOLD,
    NEAR_DUPLICATE_THRESHOLD,
    Assessment,
    analyze,
    assess,
    fingerprint,
    normalize,
    terms,
)

SAMPLES = [
    "Use uv to manage Python environments.",
    "Always use tabs for indentation in the Go services",
    "Don't run migrations on Fridays!",
    "The API returns timestamps in UTC",
    "Prefer small, focused commits",
    "我们使用 Redis 做缓存",
    "我们不再使用 Redis 做缓存。",
    "测试时禁用调试模式",
    "这个方案不错，不过要先写测试",
    "CI 里总是跑 lint 和 type check",
    "ＵＳＥ　ｐｎｐｍ！",
    "Don't.",
    "不",
    "...",
    "  \t\n ",
]


# --- normalize and fingerprint ------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Use uv.", "use uv"),
        ("  use UV   to manage\tpython environments ", "Use uv to manage Python environments."),
        ("ＵＳＥ　ｐｎｐｍ！", "use pnpm"),
        ("我们使用 Redis 做缓存。", "我们使用  redis 做缓存"),
        ("Deploy on Fridays!!", "deploy on fridays"),
        ("Straße", "STRASSE"),
    ],
)
def test_texts_that_differ_only_in_case_width_spacing_or_final_stop_normalize_alike(left, right):
    assert normalize(left) == normalize(right)


def test_normalize_keeps_questions_and_inner_punctuation():
    assert normalize("Use uv?") == "use uv?"
    assert normalize("Pin Node v20.11.") == "pin node v20.11"


@pytest.mark.parametrize("text", SAMPLES)
def test_normalize_is_idempotent(text):
    assert normalize(normalize(text)) == normalize(text)


def test_fingerprint_is_sha256_of_normalized_content_and_scope():
    expected = hashlib.sha256(b"use uv\x1fproject\x1fgithub:ada/continuity").hexdigest()
    assert fingerprint("Use UV.", "project", "github:ada/continuity") == expected


def test_fingerprint_differs_across_scopes_but_not_across_spellings():
    base = fingerprint("Use pnpm", "project", "github:ada/web")
    assert fingerprint("  use PNPM. ", "project", "github:ada/web") == base
    assert fingerprint("Use pnpm", "project", "github:ada/api") != base
    assert fingerprint("Use pnpm", "global", "") != base


# --- terms --------------------------------------------------------------------------------


def test_mixed_chinese_and_english_terms():
    assert terms("我们用 PostgreSQL 做缓存") == {"我们", "们用", "postgresql", "做缓", "缓存"}


def test_english_terms_drop_stopwords_and_fold_plurals_and_tenses():
    assert terms("The caches are cached, then caching") == {"cach"}
    assert terms("Use tabs in the tests") == terms("used a tab in a test")


def test_digits_count_as_terms_and_single_letters_do_not():
    assert terms("Indent with 4 spaces, a b c") == {"indent", "4", "spac"}


def test_a_single_character_chinese_run_is_its_own_term():
    assert terms("用 black 格式化") == {"用", "black", "格式", "式化"}


@pytest.mark.parametrize(
    ("text", "expected_terms"),
    [
        ("Don't use yarn", {"yarn"}),
        ("Never disable strict mode", {"strict", "mode"}),
        ("我们不再使用 Redis 做缓存", {"我们", "redis", "做缓", "缓存"}),
        ("禁止在周五发布", {"在周", "周五", "五发", "发布"}),
    ],
)
def test_negation_and_antonym_words_are_not_terms(text, expected_terms):
    assert terms(text) == expected_terms


@pytest.mark.parametrize(
    "text",
    [
        "这个方案不错",
        "不过我们仍然使用 Redis",
        "我们在不断改进检索质量",
        "不同的项目用不同的 Python 版本",
        "我们不得不使用 Docker",
        "别人的分支已经合并了",
        "没错，就是这个配置",
        "未来会支持 PostgreSQL",
        "Use no-op handlers in tests",
    ],
)
def test_words_that_merely_contain_a_negation_character_are_not_negations(text):
    assert analyze(text).negative == ()


@pytest.mark.parametrize(
    ("text", "negations"),
    [
        ("Do not use tabs", ("not",)),
        ("We don't deploy on Fridays", ("don't",)),
        ("It doesn’t work and we can't fix it", ("doesn't", "can't")),
        ("我们没有用 Redis", ("没有",)),
        ("别用 black", ("别",)),
        ("请勿提交 .env 文件", ("请勿",)),
        ("不错，但不要再用 yarn", ("不要",)),
        ("无需重启服务", ("无需",)),
    ],
)
def test_negations_are_found_in_english_and_chinese(text, negations):
    assert analyze(text).negative == negations


# --- assess: duplicates and near-duplicates -----------------------------------------------


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        ("Use pnpm for this repo", "use pnpm in this repo"),
        (
            "Always use tabs for indentation in the Go services",
            "Always use tabs for indentation in Go services",
        ),
        ("The staging server runs on port 8080", "Staging server runs on port 8080."),
        ("Prefer small, focused commits", "I prefer small focused commits"),
        ("项目使用 pnpm 管理依赖", "项目用 pnpm 管理依赖"),
        ("部署前先跑数据库迁移", "部署前先跑数据库迁移脚本"),
        ("Run the tests with pytest -q before pushing", "Before pushing, run tests with pytest -q"),
    ],
)
def test_rewordings_are_near_duplicates(new, existing):
    result = assess(new, existing)
    assert result.similarity >= NEAR_DUPLICATE_THRESHOLD
    assert result.near_duplicate and result.contradiction is None


def test_texts_equal_after_normalization_are_exact_duplicates():
    assert assess("Use uv.", "  USE UV ") == Assessment(1.0, True, None)
    assert assess("我们使用 Redis 做缓存。", "我们使用 Redis 做缓存") == Assessment(1.0, True, None)


@pytest.mark.parametrize("text", SAMPLES)
def test_a_text_is_a_near_duplicate_of_itself_and_never_contradicts_itself(text):
    result = assess(text, text)
    assert result.near_duplicate and result.contradiction is None and result.similarity == 1.0


# --- assess: contradictions ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("new", "existing", "reason"),
    [
        ("Always use tabs", "Never use tabs", "antonym: always/never"),
        (
            "Never use tabs for indentation in the Go services",
            "Always use tabs for indentation in the Go services",
            "antonym: always/never",
        ),
        ("我们使用 Redis 做缓存", "我们不再使用 Redis 做缓存", "negation"),
        (
            "Enable strict mode in tsconfig",
            "Disable strict mode in tsconfig",
            "antonym: enable/disable",
        ),
        ("We deploy on Fridays", "We never deploy on Fridays", "negation"),
        (
            "Run database migrations before deploying",
            "Don't run database migrations before deploying",
            "negation",
        ),
        (
            "The API returns timestamps in UTC",
            "The API does not return timestamps in UTC",
            "negation",
        ),
        ("Use tabs for indentation in Go files", "Never use tabs in Go files", "negation"),
        (
            "Prefer functional components in the React app",
            "Avoid functional components in the React app",
            "antonym: prefer/avoid",
        ),
        (
            "Include the lockfile in commits",
            "Exclude the lockfile from commits",
            "antonym: include/exclude",
        ),
        ("Telemetry is on by default", "Telemetry is off by default", "antonym: on/off"),
        ("Set DEBUG=True in production", "Set DEBUG=False in production", "antonym: true/false"),
        (
            "Use async views for the MCP endpoint",
            "Use sync views for the MCP endpoint",
            "antonym: sync/async",
        ),
        ("测试时启用调试模式", "测试时禁用调试模式", "antonym: 启用/禁用"),
        ("允许匿名访问仪表盘", "禁止匿名访问仪表盘", "antonym: 允许/禁止"),
        ("用户喜欢深色主题", "用户不喜欢深色主题", "antonym: 喜欢/不喜欢"),
        ("生产环境开启调试日志", "生产环境关闭调试日志", "antonym: 开启/关闭"),
        ("CI 里总是跑 lint", "CI 里从不跑 lint", "antonym: 总是/从不"),
        ("接口使用同步调用", "接口使用异步调用", "antonym: 同步/异步"),
        ("周五可以发布", "周五不可以发布", "negation"),
        ("我们用 Docker 跑本地开发环境", "我们不用 Docker 跑本地开发环境", "negation"),
        ("用 black 格式化 Python 代码", "别用 black 格式化 Python 代码", "negation"),
        ("请用中文回复", "不要用中文回复", "negation"),
        ("The user wants answers in 中文", "The user does not want answers in 中文", "negation"),
        ("回复时用 English", "回复时不要用 English", "negation"),
        ("Enable 严格模式 in tsconfig", "Disable 严格模式 in tsconfig", "antonym: enable/disable"),
    ],
)
def test_opposite_statements_on_the_same_topic_are_contradictions(new, existing, reason):
    result = assess(new, existing)
    assert result.contradiction == reason
    assert result.similarity >= CONTRADICTION_THRESHOLD
    assert not result.near_duplicate
    assert assess(existing, new).contradiction == reason  # symmetric


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        ("Don't disable strict mode", "Enable strict mode"),  # two negatives agree
        ("禁止 root 登录", "不允许 root 登录"),
        ("不要使用 yarn", "避免使用 yarn"),
        ("Don't use async views", "Use sync views"),
        ("我们不得不使用 Docker", "我们使用 Docker"),
        ("这个缓存方案不错", "这个缓存方案很好"),
        ("不过我们仍然使用 Redis 做缓存", "我们使用 Redis 做缓存"),
    ],
)
def test_statements_that_agree_are_not_contradictions(new, existing):
    assert assess(new, existing).contradiction is None


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        ("Use pnpm", "Don't use yarn"),
        ("Use pnpm for the frontend", "Don't commit node_modules"),
        ("Don't store secrets in the repo", "Use the repo's Makefile to run tests"),
        ("Never push directly to main", "The main branch deploys to staging automatically"),
        ("The API returns timestamps in UTC", "Don't log timestamps for health checks"),
        ("Redis is not used in the lite profile", "Use Redis for Celery in the team profile"),
        ("Never use tabs", "Tabs are shown as 4 spaces in the editor"),
        ("不要在周五发布", "发布前先跑完整测试"),
        ("我们使用 Redis 做缓存", "不要把 Redis 端口暴露到公网"),
    ],
)
def test_opposite_polarity_on_a_different_topic_is_not_a_contradiction(new, existing):
    result = assess(new, existing)
    assert result.contradiction is None
    assert result.similarity < CONTRADICTION_THRESHOLD


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        ("Use pnpm for this repo", "数据库备份每天凌晨三点执行"),
        ("Prefer small, focused commits", "The staging server runs on port 8080"),
        ("我们使用 Redis 做缓存", "用户喜欢深色主题"),
        ("Always answer in Chinese", "Tests use pytest-django with SQLite"),
    ],
)
def test_unrelated_texts_score_low(new, existing):
    result = assess(new, existing)
    assert result.similarity < 0.2
    assert not result.near_duplicate and result.contradiction is None


def test_texts_without_content_terms_are_neither_similar_nor_contradictory():
    assert assess("Don't.", "Always!") == Assessment(0.0, False, None)
