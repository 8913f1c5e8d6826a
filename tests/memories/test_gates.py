"""The write gate: credentials are caught in English and Chinese, ordinary memories pass.

Every secret here is fabricated; the corpus of one realistic example per rule, shared with
the redaction tests, is tests/secrets_corpus.py.
"""

from __future__ import annotations

import pytest

from foundation.errors import ErrorCode, ServiceError
from memories.gates import (
    RULE_NAMES,
    SecretFinding,
    check_no_secrets,
    check_size,
    find_secrets,
    redact,
)
from tests.secrets_corpus import (
    CAUGHT,
    CONTINUITY_TOKEN,
    JWT,
    KEY_BODY,
    UPPER_ALNUM,
    fake,
    key_block,
)

# Ordinary developer memories that talk about credentials without containing one.
ORDINARY = [
    "Auth uses bearer tokens; the token goes in the Authorization header.",
    "The password reset flow uses email links that expire after 30 minutes.",
    "The password field must be hashed with argon2 before saving.",
    "Use a password manager (1Password) for shared credentials.",
    "The password is hashed with PBKDF2 by default.",
    "Password: required for all admin accounts.",
    "Our password policy: minimum 12 characters, no reuse of the last 5.",
    "The login form posts username and password to /accounts/login/.",
    "Set PASSWORD=${DB_PASSWORD} in docker-compose; never hardcode it.",
    "In .env.example, DB_PASSWORD=changeme is a placeholder.",
    "password: <password> in the sample config, and password=*** in logs.",
    "password = os.environ['DB_PASSWORD'] in settings.py",
    "pwd: /Users/ada/src/continuity",
    "pwd = Path.cwd() in the script; password = getpass() when run by hand.",
    "The password is hashed. Password: required.",
    "passwd: files systemd (from /etc/nsswitch.conf)",
    "The Authorization: Bearer <token> header is required for /api/v1/.",
    "Use `Authorization: Bearer $CONTINUITY_TOKEN` in curl examples.",
    "Authorization: required on every endpoint except /health.",
    "Bearer auth is preferred over cookies for agents.",
    "Rotate AWS access keys every 90 days; keys live in AWS Secrets Manager.",
    "The AKIA prefix marks long-term AWS access keys, ASIA marks temporary ones.",
    "AWS region is eu-west-1; the backups bucket is continuity-backups-prod.",
    "Personal access tokens start with cont_pat_ and are shown only once.",
    "GitHub tokens (ghp_...) must be fine-grained with read-only contents.",
    "Slack bot token is read from the SLACK_BOT_TOKEN env var; xoxb tokens are for bots.",
    "Cookies are HttpOnly and SameSite=Lax.",
    "Set-Cookie: SameSite=Lax is required for the session cookie.",
    "Session cookie name is sessionid; the CSRF cookie is csrftoken.",
    "The SSH key lives in ~/.ssh/id_ed25519; never commit private keys.",
    "Never commit files that start with -----BEGIN RSA PRIVATE KEY----- to the repo.",
    "The task-scheduler-service-v2-production-cluster runs the cron jobs.",
    "Use scikit-learn (sklearn) for the baseline classifier; see risk-assessment-v2-draft.",
    "The fixture string aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q= is just base64 for a greeting.",
    "Commit 3f9a2c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291 fixed the flaky login test.",
    "max_tokens=4096 for summarization calls; token_budget defaults to 2000.",
    "JWTs are signed with HS256; the secret comes from settings.SECRET_KEY.",
    "Store the API key in the OPENAI_API_KEY environment variable, never in code.",
    "The secret: keep migrations small and reversible.",
    "access_token: expires after 1h, refresh tokens after 30 days.",
    "postgres://postgres:postgres@localhost:5432/continuity is the local dev database.",
    "Redis runs at redis://localhost:6379/0 in the lite profile.",
    "csrf_token: {{ csrf_token }} is rendered by the template.",
    "Tokens are compared with hmac.compare_digest to avoid timing attacks.",
    "Use git commit -S to sign commits with the GPG key.",
    "密码至少 12 位，必须包含数字。",
    "请把密码存进密码管理器。",
    "密码是必填项，不能为空。",
    "API 密钥放在环境变量里，不要写进代码。",
    "用户登录使用 OAuth，token 有效期 1 小时。",
    "我们的 token 前缀是 cont_pat_，只显示一次。",
    "AWS 的 access key 每 90 天轮换一次。",
    # command lines, markup and phrasings that name a password without holding one
    "mysql -u root -p -h db.internal shop prompts for the password.",
    "redis-cli -h cache -p 6379 ping; docker run -p 8080:80 nginx",
    "net user backup /add, then net user backup * to set it interactively.",
    "Passwords are hashed with argon2id; the password SHA256 column is legacy.",
    'A <property name="password.encoder" value="bcrypt"/> line picks the hasher.',
    "| password | required |\n| password rotation | 90 days |",
    "password_reset_token_ttl: 3600 and password_min_length: 12 in settings.",
    "The password must be 12-64 characters; the password v2 migration is done.",
    "The password of the CI user lives in the vault at ci/deploy.",
    "密码哈希用 argon2id，密码长度至少 12 位，密码错误次数超过5次锁定。",
    "用户名/密码登录之外，也支持 OAuth2 登录。",
    "echo $DB_PASSWORD | docker login --password-stdin registry.example.com",
]


@pytest.mark.parametrize(("rule", "text"), CAUGHT)
def test_each_rule_catches_realistic_fabricated_secrets(rule, text):
    assert rule in [finding.rule for finding in find_secrets(text)]


def test_every_rule_has_at_least_one_catching_example():
    assert {rule for rule, _ in CAUGHT} == set(RULE_NAMES)


def test_ordinary_developer_memories_are_not_flagged():
    flagged = {text: find_secrets(text) for text in ORDINARY if find_secrets(text)}
    assert len(ORDINARY) >= 30
    assert flagged == {}


@pytest.mark.parametrize(
    "text",
    [
        "password reset flow uses email links",
        "the password field must be hashed",
        "use a password manager",
        "password: <password>",
        "password=***",
        "PASSWORD=${PASSWORD}",
        "password: xxx",
        "password=changeme",
        "password: $DB_PASSWORD",
        "password = {{ vault_password }}",
        "请把密码存进密码管理器",
        "密码：<在 1Password 里>",
    ],
)
def test_placeholders_and_prose_about_passwords_are_not_secrets(text):
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text", ["这个方案不错", "task-runner-abcdefghijklmnopqrstuvwxyz0123", "desk-" + "a1" * 15]
)
def test_words_that_merely_contain_a_prefix_are_not_keys(text):
    assert find_secrets(text) == []


def test_a_low_entropy_sk_string_is_not_an_api_key():
    assert find_secrets("sk-this-is-not-a-real-key-at-all-really") == []
    assert find_secrets("sk-" + "x" * 40) == []


def test_findings_report_the_secret_span_only():
    text = "DB_PASSWORD=hunter2hunter2 # staging"
    [finding] = find_secrets(text)
    assert finding == SecretFinding("password_assignment", 12, 26)
    assert text[finding.start : finding.end] == "hunter2hunter2"


def test_a_bearer_token_inside_an_authorization_header_is_one_finding():
    findings = find_secrets(f"Authorization: Bearer {JWT}")
    assert [finding.rule for finding in findings] == ["authorization_header"]


def test_check_no_secrets_names_rule_and_field_without_echoing_the_secret():
    secret = fake("AK" + "IA", 16, UPPER_ALNUM)
    with pytest.raises(ServiceError) as caught:
        check_no_secrets({"content": "deploy notes", "tags": f"aws {secret}"})
    error = caught.value
    assert error.code == ErrorCode.SECRET_REJECTED
    assert error.message == (
        "tags looks like it contains a credential (rule: aws_access_key); secrets are never "
        "stored. Remove it and try again."
    )
    assert error.details == [{"field": "tags", "rule": "aws_access_key"}]
    assert secret[4:] not in str(error.as_envelope())


def test_check_no_secrets_lists_every_field_and_rule_in_details():
    with pytest.raises(ServiceError) as caught:
        check_no_secrets(
            {
                "content": "我的密码是 hunter2hunter2",
                "key": "",
                "value": None,
                "retrieval_hints": CONTINUITY_TOKEN,
            }
        )
    assert caught.value.details == [
        {"field": "content", "rule": "password_assignment"},
        {"field": "retrieval_hints", "rule": "continuity_token"},
    ]
    assert "hunter2" not in str(caught.value.as_envelope())
    assert CONTINUITY_TOKEN[9:] not in str(caught.value.as_envelope())


def test_check_no_secrets_passes_clean_fields():
    assert check_no_secrets({"content": ORDINARY[0], "tags": "auth tokens", "value": ""}) is None


def test_redact_replaces_each_secret_and_counts_per_rule():
    text = f"token {CONTINUITY_TOKEN} and password=hunter2hunter2 and again {CONTINUITY_TOKEN}"
    redacted, counts = redact(text)
    assert redacted == (
        "token [REDACTED:continuity_token] and password=[REDACTED:password_assignment] "
        "and again [REDACTED:continuity_token]"
    )
    assert counts == {"continuity_token": 2, "password_assignment": 1}


def test_redact_merges_partly_overlapping_findings_into_one_marker():
    # The key block's unterminated body runs into the password value, which runs further.
    text = f"-----BEGIN EC PRIVATE KEY-----\n{KEY_BODY}\npassword=hunter2!x tail"
    redacted, counts = redact(text)
    assert redacted == "[REDACTED:private_key_block] tail"
    assert counts == {"private_key_block": 1}


def test_redact_covers_a_real_key_block_after_headers_quoted_in_prose():
    text = "Never paste -----BEGIN RSA PRIVATE KEY----- lines.\n" * 3 + key_block("EC ")
    redacted, counts = redact(text)
    assert counts == {"private_key_block": 1}
    assert all(line not in redacted for line in KEY_BODY.splitlines())
    assert redacted.startswith("Never paste -----BEGIN RSA PRIVATE KEY----- lines.\n")


@pytest.mark.parametrize(("rule", "text"), CAUGHT)
def test_redact_leaves_no_trace_of_the_secret(rule, text):
    redacted, counts = redact(text)
    assert sum(counts.values()) == redacted.count("[REDACTED:")
    for finding in find_secrets(text):
        assert text[finding.start : finding.end] not in redacted


def test_redact_leaves_clean_text_alone():
    assert redact(ORDINARY[1]) == (ORDINARY[1], {})
    assert redact("") == ("", {})


@pytest.mark.parametrize("content", ["", "   ", "\n\t ", None])
def test_size_gate_rejects_empty_content(content):
    with pytest.raises(ServiceError) as caught:
        check_size(content)
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    assert caught.value.details[0]["field"] == "content"


@pytest.mark.parametrize("content", ["x" * 4001, "长" * 4001])
def test_size_gate_counts_characters_and_states_the_limit_and_length(content):
    with pytest.raises(ServiceError) as caught:
        check_size(content)
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    assert "4,001 characters" in caught.value.message and "limit is 4,000" in caught.value.message


@pytest.mark.parametrize("content", ["x" * 4000, "记" * 4000, "Use uv."])
def test_size_gate_accepts_up_to_the_limit_in_characters_not_bytes(content):
    assert check_size(content) is None


def test_size_gate_takes_a_custom_limit():
    with pytest.raises(ServiceError):
        check_size("abcdef", limit=5)
