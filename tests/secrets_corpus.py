"""Fabricated secrets: a realistic example of every rule the write gate and redaction know.

Shared by the gate tests (tests/memories/test_gates.py) and the redaction tests
(tests/capture/test_redaction.py). Token-shaped values are assembled at run time from a
seeded generator so that no credential-shaped literal sits in the repository for scanners
to trip on.
"""

from __future__ import annotations

import base64
import random
import string
from urllib.parse import quote

ALNUM = string.ascii_letters + string.digits


def fake(prefix: str, length: int, alphabet: str = ALNUM, seed: int = 7) -> str:
    generator = random.Random(f"{prefix}{length}{seed}")
    return prefix + "".join(generator.choice(alphabet) for _ in range(length))


UPPER_ALNUM = string.ascii_uppercase + string.digits
KEY_BODY = "\n".join(fake("", 64, ALNUM + "+/", seed=n) for n in range(3))
CONTINUITY_TOKEN = fake("cont_" + "pat_", 40, ALNUM + "_-")


def key_block(kind: str, suffix: str = "") -> str:
    header = f"{kind}PRIVATE KEY{suffix}-----"
    return f"-----BEGIN {header}\n{KEY_BODY}\n-----END {header}"


JWT_BARE = (
    base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=") + "."
    + base64.urlsafe_b64encode(b'{"sub":"1234567890","iat":1700000000}').decode().rstrip("=")
    + "." + fake("", 43, ALNUM + "_-")
)  # fmt: skip
JWT = fake("eyJ", 20) + "." + fake("eyJ", 30) + "." + fake("", 43, ALNUM + "_-")

CAUGHT = [
    ("authorization_header", f"curl -H 'Authorization: Bearer {JWT}' https://api.example.com"),
    ("authorization_header", "Authorization: Basic " + fake("", 24, ALNUM + "+/") + "=="),
    ("authorization_header", "proxy-authorization: token " + fake("", 32, "0123456789abcdef")),
    ("authorization_header", f"调用接口时带上 Authorization: Bearer {JWT} 即可"),
    ("cookie_header", "Cookie: a=b"),
    ("cookie_header", "Set-Cookie: sessionid=" + fake("", 32, "0123456789abcdef") + "; HttpOnly"),
    ("cookie_header", "send cookie: csrftoken=" + fake("", 20) + "; sessionid=abc123"),
    ("continuity_token", CONTINUITY_TOKEN),
    ("continuity_token", f"export CONTINUITY_TOKEN={CONTINUITY_TOKEN}"),
    ("continuity_token", f"记住：我的令牌是{CONTINUITY_TOKEN}，别外传"),
    ("continuity_token", f"https://hub.local/mcp?token={CONTINUITY_TOKEN}&x=1"),
    ("private_key_block", key_block("RSA ")),
    ("private_key_block", key_block("EC ")),
    ("private_key_block", key_block("")),
    ("private_key_block", key_block("PGP ", " BLOCK")),
    ("private_key_block", f"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}\n"),
    ("api_key", "OpenAI key: " + fake("sk-", 48)),
    ("api_key", "use " + fake("sk-" + "proj-", 56, ALNUM + "_-") + " for the evals"),
    ("api_key", "ANTHROPIC_API_KEY=" + fake("sk-" + "ant-api03-", 80, ALNUM + "_-")),
    ("api_key", "stripe " + fake("sk_" + "live_", 24)),
    ("api_key", "我的 key 是" + fake("sk-", 32) + "，先用着"),
    ("bearer_token", f"call the API with bearer {JWT} for now"),
    ("bearer_token", "token: Bearer " + fake("", 40, "0123456789abcdef")),
    ("aws_access_key", "The deploy key is AKIAIOSFODNN7EXAMPLE for prod"),
    ("aws_access_key", "aws key " + fake("AK" + "IA", 16, UPPER_ALNUM)),
    ("aws_access_key", "临时凭证 " + fake("AS" + "IA", 16, UPPER_ALNUM) + " 一小时后过期"),
    ("aws_secret_key", "aws_secret_access_key = " + fake("", 40, ALNUM + "/+")),
    ("aws_secret_key", 'AWS_SECRET_ACCESS_KEY="' + fake("", 40, ALNUM + "/+") + '"'),
    ("github_token", "GH token " + fake("gh" + "p_", 36)),
    ("github_token", fake("gh" + "s_", 36) + " is the app token"),
    ("github_token", "PAT: " + fake("github" + "_pat_", 82, ALNUM + "_")),
    ("slack_token", "bot: " + "xo" + "xb-123456789012-1234567890123-" + fake("", 24)),
    ("slack_token", "xo" + "xp-2222222222-333333333333-" + fake("", 32, "0123456789abcdef")),
    ("password_assignment", "password=hunter2hunter2"),
    ("password_assignment", "passwd: S3cure!pass"),
    ("password_assignment", '{"pwd": "p4ss-w0rd-99"}'),
    ("password_assignment", 'PASSWORD="Tr0ub4dor&3"'),
    ("password_assignment", "DB_PASSWORD=xK9#mQ2$vL"),
    ("password_assignment", "password: letmein"),
    ("password_assignment", "my password is Hunter2!Hunter2"),
    ("password_assignment", "psql --password s3cretPass99 -h db"),
    ("password_assignment", "我的密码是 hunter2hunter2"),
    ("password_assignment", "我的密码是hunter2hunter2，记住它"),
    ("password_assignment", "数据库密码：Passw0rd!2024"),
    ("password_assignment", "测试账号的密码为 s3cretPass，用户名 ada"),
    ("password_assignment", "把 root 密码改成 Zq8!vR2#kL 了"),
    ("url_credentials", "DATABASE_URL=postgres://ada:S3cretPass99@db.internal:5432/app"),
    ("url_credentials", "redis://:r3d1sPassw0rd@cache:6379/0"),
    ("secret_assignment", "OPENAI_API_KEY=" + fake("", 32)),
    ("secret_assignment", "SECRET_KEY='django-insecure-" + fake("", 40, ALNUM + "!@#%^*-") + "'"),
    ("secret_assignment", '"access_token": "' + fake("ya29.", 60, ALNUM + "_-") + '"'),
    ("card_number", "charge it to 4111 1111 1111 1111 please"),
    ("card_number", "卡号是6222-0200-0000-0007，已绑定"),
    ("prc_id_number", "身份证号11010519491231002X，请核对"),
    ("prc_id_number", "身份证 110105.19491231.002X"),
    ("card_number", "card ４１１１ １１１１ １１１１ １１１１"),
    ("card_number", "4111/1111 then 1111/1111"),
    ("google_api_key", "maps key " + fake("AI" + "za", 35, ALNUM + "_-")),
    ("jwt", "session " + JWT_BARE),
    ("webhook_secret", "STRIPE_WEBHOOK=" + fake("wh" + "sec_", 32)),
    (
        "webhook_secret",
        "https://hooks.slack.com/services/T0"
        + fake("", 8, UPPER_ALNUM)
        + "/B0"
        + fake("", 8, UPPER_ALNUM)
        + "/"
        + fake("", 24),
    ),
    ("huggingface_token", "HF " + fake("h" + "f_", 34)),
    ("gitlab_token", "CI uses " + fake("gl" + "pat-", 20, ALNUM + "_-")),
    ("sendgrid_key", fake("S" + "G.", 22, ALNUM + "_-") + "." + fake("", 43, ALNUM + "_-")),
    ("azure_key", "AccountName=x;AccountKey=" + fake("", 86, ALNUM + "+/") + "==;"),
    ("twilio_key", "twilio " + fake("S" + "K", 32, "0123456789abcdef")),
    ("provider_token", "NPM_TOKEN " + fake("np" + "m_", 36)),
    ("telegram_bot_token", "bot 123456789:" + fake("A" + "A", 33, ALNUM + "_-")),
    ("private_key_block", "MIIEpAIBAAKCAQEA" + fake("", 64, ALNUM + "+/")),
    ("labelled_token", "the signing key for prod is " + fake("", 32)),
    ("labelled_token", "令牌 " + fake("", 40, ALNUM + "+/")),
    ("url_credentials", "postgres://user:p@ss/w0rd@host/db"),
    ("continuity_token", "base64: " + base64.b64encode(CONTINUITY_TOKEN.encode()).decode()),
    ("github_token", "url " + quote(fake("gh" + "p_", 36), safe="")),
    (
        "discord_bot_token",
        "client.run('"
        + base64.urlsafe_b64encode(b"379269431664850785").decode().rstrip("=")
        + "."
        + fake("", 6)
        + "."
        + fake("", 38, ALNUM + "_-")
        + "')",
    ),
    (
        "sentry_dsn_key",
        "SENTRY_DSN=https://" + fake("", 32, "0123456789abcdef") + "@o1.ingest.sentry.io/42",
    ),
    ("azure_client_secret", "client secret " + fake("", 3) + "8Q~" + fake("", 34, ALNUM + "_~.-")),
    ("basic_credentials", "抓到的认证头 Basic " + base64.b64encode(b"deploy:Asd@545283").decode()),
    (
        "session_cookie",
        "把 sessionid=" + fake("", 32, "abcdefghijklmnopqrstuvwxyz0123456789") + " 贴到浏览器",
    ),
    ("totp_seed", "2FA setup key: " + fake("", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    ("iban", "wire the deposit to DE89 3704 0044 0532 0130 00 by Friday"),
    ("password_flag", "mysql -u app -pQ7v!x2Lr9k -h db.internal shop"),
    ("password_flag", "echo 'Zk2#pQ9vW' | sudo -S systemctl restart nginx"),
    ("password_flag", "htpasswd -b -c /etc/nginx/.htpasswd ops 'Mt5^r8Lq2'"),
    ("password_markup", '<property name="connection.password" value="Tr0ub4dor3x"/>'),
    ("password_markup", "| staging db password | Hq8-rW2!zx |"),
    ("password_phrase", "跳板机的密码改成了 Lm4x9Qz2w，记一下"),
    ("password_phrase", "the admin password is still kestrel42!, never changed"),
    ("password_phrase", "用户名/密码：ops / Zd8308huO8w"),
]
