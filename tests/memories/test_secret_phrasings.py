"""Credentials written without an assignment (memories/secret_phrasings.py), the shapes
added beside them (IBANs, Discord bot tokens, AWS key ids read out in groups, escaped
values), and the vendors' published examples, which pass only when called examples."""

from __future__ import annotations

import base64

import pytest

from capture.redaction import redact
from memories.gates import find_secrets, may_hold_secret
from tests.secrets_corpus import CAUGHT, fake

pytestmark = pytest.mark.once  # texts only: no database, no broker

CAUGHT_PHRASINGS = [
    ("mysql -uroot -pzgGM*^8pV7~X  这条命令跑一下就能连上", "zgGM*^8pV7~X"),
    ("redis-cli -h cache.internal -a 'mB0Ocih08a5B' ping", "'mB0Ocih08a5B'"),
    ("sshpass -p 'Bvl5781q4AXn' ssh deploy@bastion", "'Bvl5781q4AXn'"),
    ("docker login -u ci -p 'H^A2yf4%Z^8@hL' registry.internal", "'H^A2yf4%Z^8@hL'"),
    ("ldapsearch -x -D 'cn=admin' -w 'Hmw7664bzFFC' -b 'dc=corp'", "'Hmw7664bzFFC'"),
    ("net user backup 4RQz3imS7QBIZUFq /add", "4RQz3imS7QBIZUFq"),
    ("curl -s --user 'api:9f2c1d7e4b3a-7c206eab' https://api.internal/v3", "9f2c1d7e4b3a-7c206eab"),
    ('<input type="password" name="pwd" value="n1mbus-120">', '"n1mbus-120"'),
    ("<password>Walrus91@09</password>", "Walrus91@09"),
    ("<td>db password</td><td>Junipe#r356</td>", "Junipe#r356"),
    ("guest wifi is ExampleGuest, password ywQ/ZXu1OT/~", "ywQ/ZXu1OT/~"),
    ("new password for the grafana admin user: orbit-mango-nimbus15", "orbit-mango-nimbus15"),
    ("root pw is `Harbor856%0~`", "`Harbor856%0~`"),
    ("初始密码mango1965@，登录后请立即修改", "mango1965@"),
    ("VPN 口令 Azi5m?sigd?c，别外传", "Azi5m?sigd?c"),
    ("管理后台账号 root，密码 25jE#IK%p@LC", "25jE#IK%p@LC"),
    ("Redis 的 requirepass 设置为 walrus.lantern.cobalt11", "walrus.lantern.cobalt11"),
    ("电话里报的密码：pFrk 1a6T Q8MO", "pFrk 1a6T Q8MO"),
    ("wifi 密碼 Ｎｚｖ８３３９ｒ３Ｚｎｃ", "Ｎｚｖ８３３９ｒ３Ｚｎｃ"),
    ("storage:\n  account_key: " + fake("", 86, "abcdefGHIJK0123456789+/") + "==", None),
    ("Azure Blob 的 AccountKey 是 " + fake("", 86, "abcdefGHIJK0123456789+/") + "==", None),
    ("read it to me again: access key AKIA NZUT DSU7 MGPZ 5XZA", "AKIA NZUT DSU7 MGPZ 5XZA"),
    ('{"SecretAccessKey":"fNl8kpIaq\\/5P76nSNCNxPtGT96M3ETd\\u002bYyPq5Yl9"}', None),
    ("<td>db password</td><td>Junipe&#35;r356&#64;0&#37;</td>", "Junipe&#35;r356&#64;0&#37;"),
    ("IBAN: GB82 WEST 1234 5698 7654 32, 户名 Example GmbH", "GB82 WEST 1234 5698 7654 32"),
    ("收款账户 IBAN FR1420041010050500013M02606", "FR1420041010050500013M02606"),
    ("dsn: https://618b30ef74d291235d4785e6914365bc@o57009.ingest.us.sentry.io/17", None),
    (
        "url: https://open.feishu.cn/open-apis/bot/v2/hook/a5f6a020-3ad1-f86b-d23f-c08f7e537f59",
        None,
    ),
    ('- name: VERCEL_TOKEN\n  value: "Zm0ybR5V53hkBRk0YMthfkie"', "Zm0ybR5V53hkBRk0YMthfkie"),
    ("key, spaced so the bot won't eat it: nfp_YfWH Qw7NpKtx pxYfDB2W BoWq0Kvd tiTVXO7H", None),
    ('"auths": {"registry.internal": {"auth": "VDFnM3IjMjk="}}', "VDFnM3IjMjk="),
    ("my _gitlab_session is d89c38e289c2271eb37eee39df94ce49 if you need it", None),
    ("MFA seed for the shared root account: EZWO 5222 EF7I QDSC 66V4 YTYJ QD7W CEPU", None),
    ("echo S2VzdHJlbDIwMjI/ | base64 -d  # the admin password", "S2VzdHJlbDIwMjI/"),
    ("DB_PASSWORD_B64=UGFuZGEyMDIzJA==", "UGFuZGEyMDIzJA=="),
    (
        "can you retry with sWuj41P2480r5MfkXDoeRh4fPa-EeB4is_36PAlt? that's the fresh CDN key",
        "sWuj41P2480r5MfkXDoeRh4fPa-EeB4is_36PAlt",
    ),
    ("这串 g3ZiUR8ZBurdQHsvdpLuPiLb 就是部署平台的 API 密钥，别外传", "g3ZiUR8ZBurdQHsvdpLuPiLb"),
    ("notes from the call: Okta account -> key 00ntHOvxXubXeXraV0dj0Jfk18rdjT5Bf", None),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT_PHRASINGS)
def test_credentials_without_an_assignment_are_refused_and_redacted(text, secret):
    assert find_secrets(text), text
    stored = redact(text).text
    if secret is not None:
        assert secret not in stored, stored
    assert "[REDACTED:" in stored


def test_a_discord_bot_token_is_known_by_the_bot_id_it_encodes():
    bot_id = base64.urlsafe_b64encode(b"379269431664850785").decode().rstrip("=")
    token = f"{bot_id}.n00hkf.{fake('', 38)}"
    assert [f.rule for f in find_secrets(f"client.run('{token}')")] == ["discord_bot_token"]
    not_an_id = base64.urlsafe_b64encode(b"release-2024-11-03-x").decode().rstrip("=")
    assert find_secrets(f"see {not_an_id}.abcdef.{'x' * 30}") == []


PASSING = [
    "identifier Iv1.1ab091ed62a0a587 (not a secret)",
    "fixed in 3f9a2c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291, the key change of the release",
    "session_timeout=3600; the sessionid cookie is HttpOnly and SameSite=Lax.",
    "TOTP codes are 6 digits; the 2FA setup key is shown once as a QR code.",
    "- name: LOG_LEVEL\n  value: debug\n- name: API_KEY_HEADER\n  value: X-Api-Key",
    "read it out over the phone and then type it in the box on the left",
    "The Quick Brown Fox Jumps Over The Lazy Dog, v2 Release Notes",
    "mysql -u root -p -h db.internal shop asks for the password.",
    "docker run -p 8080:80 nginx; redis-cli -p 6379 ping",
    "net user backup /add",
    "curl -u admin:$ADMIN_TOKEN https://api.internal",
    "password: !vault-lookup db/prod",
    "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
    "IBAN: GB83 WEST 1234 5698 7654 32 fails its check digits",
    "order ZX12 3456 7890 1234 shipped",
    "The AWS docs use AKIAIOSFODNN7EXAMPLE as the example access key id.",
    "Stripe's documented test card 4242 4242 4242 4242 always succeeds in test mode.",
    "测试卡号用文档里的 4111 1111 1111 1111（示例卡号）",
    "the sample token on jwt.io is eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
]


@pytest.mark.parametrize("text", PASSING)
def test_look_alikes_and_published_examples_called_examples_pass(text):
    assert find_secrets(text) == []


def test_a_published_example_written_as_if_real_is_still_refused():
    assert find_secrets("The deploy key is AKIAIOSFODNN7EXAMPLE for prod")
    assert find_secrets("charge it to 4111 1111 1111 1111 please")
    # an example word that is part of another key does not excuse the card beside it
    assert find_secrets("卡号 5555-5555-5555-4444 and AKIAIOSFODNN7EXAMPLE")


@pytest.mark.parametrize(
    "text", [text for _, text in CAUGHT] + [text for text, _ in CAUGHT_PHRASINGS]
)
def test_the_cheap_pre_check_never_skips_a_text_a_rule_would_catch(text):
    assert may_hold_secret(text)


def test_the_pre_check_skips_ordinary_ascii_conversation():
    assert not may_hold_secret("Run the migrations, then restart the web process.")
    assert not may_hold_secret("")
