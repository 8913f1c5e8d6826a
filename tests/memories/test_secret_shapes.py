"""Secret shapes beyond the labelled ones, and disguised secrets: the write gate refuses them
(through the service and the agent API) and capture redaction masks them, while ordinary
engineering text passes. The corpora are tests/fixtures/secrets/ (fabricated, seeded);
`bench/secrets_eval.py` prints the held-out figures, which are not asserted here.
"""

from __future__ import annotations

import base64
import random
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from capture.redaction import redact
from foundation.errors import ErrorCode, ServiceError
from memories.gates import find_secrets
from memories.models import Memory
from memories.secret_text import normalise
from memories.services import memory_remember
from tests.fixtures.secrets import makers
from tests.fixtures.secrets.corpus import lookalike_cases, secret_cases

TOKEN_FAMILIES = [
    "google_api_key", "jwt", "stripe_webhook", "slack_webhook", "huggingface_token",
    "gitlab_token", "sendgrid_key", "twilio_key", "openai_key", "github_token",
    "aws_access_key", "slack_token", "continuity_token",
]  # fmt: skip
INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u202e",
    "\u2066",
    "\u200e",
]
SEPARATORS = [" ", "-", ".", "/", "_", "\u00a0", "\u2009", "\u3000", "·", "\u2013"]
# The token fixtures are the same for every example; each example checks its own count.
FIXTURES_OK = [HealthCheck.function_scoped_fixture]
CONTEXTS = ["{}", "note: {} ok", "记一下：{}，别外传", "export X={}", "(see {})"]


@st.composite
def fake_keys(draw):
    family = draw(st.sampled_from(TOKEN_FAMILIES))
    return makers.FAMILIES[family](random.Random(draw(st.integers(0, 10**9))))


@st.composite
def disguised(draw):
    """(text, what must be gone from the stored text) for a fake key or a personal number."""
    rng = random.Random(draw(st.integers(0, 10**9)))
    how = draw(st.sampled_from(["invisible", "fullwidth", "confusable", "percent", "base64",
                                "percent_of_base64", "number"]))  # fmt: skip
    if how == "number":
        digits = rng.choice([makers.card, makers.prc_id])(rng)
        sep = draw(st.sampled_from(SEPARATORS))
        shown = sep.join(digits[i : i + 4] for i in range(0, len(digits), 4))
        if draw(st.booleans()):
            shown = makers._fullwidth(rng, shown)
        return draw(st.sampled_from(CONTEXTS)).format(shown), shown
    key = draw(fake_keys())
    if how == "invisible":
        spots = sorted(draw(st.lists(st.integers(1, len(key) - 1), min_size=1, max_size=5)))
        shown = "".join(
            key[a:b] + draw(st.sampled_from(INVISIBLE))
            for a, b in zip([0, *spots], [*spots, len(key)], strict=True)
        )[:-1]
    elif how == "fullwidth":
        shown = makers._fullwidth(rng, key)
    elif how == "confusable":
        shown = makers._confuse(rng, key)
    elif how == "percent":
        shown = "".join(f"%{ord(c):02X}" for c in key)
    elif how == "base64":
        shown = base64.b64encode(key.encode()).decode()
    else:
        shown = quote(base64.b64encode(key.encode()).decode(), safe="")
    return draw(st.sampled_from(CONTEXTS)).format(shown), shown


def assert_masked(text: str, shown: str) -> None:
    stored = redact(text).text
    assert "[REDACTED:" in stored
    assert shown not in stored
    core = normalise(shown).text
    assert core not in normalise(stored).text


@hypothesis_settings(max_examples=400, deadline=None)
@given(case=disguised())
def test_disguised_secrets_are_found_and_redaction_masks_them(case):
    text, shown = case
    assert find_secrets(text), text
    assert_masked(text, shown)


@pytest.mark.django_db
@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=FIXTURES_OK)
@given(case=disguised())
def test_the_remember_service_refuses_disguised_secrets_and_stores_nothing(case, agent_actor):
    before = Memory.objects.count()
    with pytest.raises(ServiceError) as caught:
        memory_remember(actor=agent_actor, content=f"Deploy notes: {case[0]}", kind="fact")
    assert caught.value.code == ErrorCode.SECRET_REJECTED
    assert Memory.objects.count() == before


@pytest.mark.django_db
@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=FIXTURES_OK)
@given(case=disguised())
def test_the_agent_api_refuses_disguised_secrets_with_the_envelope(case, client, make_token):
    _, raw = make_token("claude-code")
    before = Memory.objects.count()
    response = client.post(
        "/api/v1/memories",
        {"content": f"Remember this: {case[0]}", "kind": "fact"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "SECRET_REJECTED"
    assert case[1] not in str(error)
    assert Memory.objects.count() == before


@pytest.mark.parametrize(
    "text",
    [
        "postgres://user:p@ss/w0rd@host/db",
        "POSTGRES_PASSWORD: Xk9mQ2vL8r",
        "dbPassword=Xk9mQ2vL8r",
        "pwd=Xk9mQ2vL8r",
        "pass: Xk9mQ2vL8r",
        "密码是Xk9mQ2vL8r请记住",
        "口令为 letmein123",
        "密碼：Xk9mQ2vL8r",
        "4111.1111.1111.1111",
        "4111_1111_1111_1111",
        "4111\u00a01111\u00a01111\u00a01111",
        "卡号 ４１１１ １１１１ １１１１ １１１１",
        "4111 1111 then 1111 1111",
        "110105/19491231/002X",
        "身份证 １１０１０５１９４９１２３１００２Ｘ",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "b3BlbnNzaC1rZXktdjEAAAAA" + "Q" * 60,
        "the signing key for prod is 9fK2mQ7vX1pL4sT8wB3nR6yD",
        "访问令牌：9fK2mQ7vX1pL4sT8wB3nR6yD0aZ",
    ],
)
def test_shapes_the_outside_attack_stored_are_refused(text):
    assert find_secrets(text)
    assert redact(text).counts


@pytest.mark.parametrize(
    "text",
    [
        "Rotate the API key every 90 days.",
        "Use SSH keys, not passwords, for the deploy box.",
        "密码至少12位",
        "The primary key of memories is a UUID: 9b2f6c1e-8d4a-4f0b-9c3e-2a1d7e5f4b6c.",
        "Idempotency-Key: 8e03978e-40d5-43e8-bc93-6894a57f9324",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  app.tar.gz",
        "Add my public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx8yJ3kQ9mN2pL5vR7sT1uW ada@laptop",
        "token logic lives in django.contrib.auth.tokens.PasswordResetTokenGenerator",
        "PASSWORD_RESET_TIMEOUT = 259200",
        "订单号 20261129000123 与电话 138 0013 8000",
        "between 2024-01-15 and 2024-02-15, v2.14.3 was the release",
        "color: #1a2b3c; background: #fff;",
    ],
)
def test_everyday_text_about_credentials_passes(text):
    assert find_secrets(text) == []


@pytest.mark.parametrize("split", ["tuned", "holdout"])
def test_the_corpora_are_large_enough_and_cover_every_family(split):
    secrets, lookalikes = secret_cases(split), lookalike_cases(split)
    assert {case.family for case in secrets} == set(makers.FAMILIES)
    assert {case.language for case in secrets} == {"en", "zh"}
    if split == "tuned":
        assert len(secrets) >= 300 and len(lookalikes) >= 300
    assert secret_cases(split) == secrets  # deterministic


def test_the_tuned_corpus_meets_the_targets_for_the_gate_and_redaction():
    secrets, lookalikes = secret_cases("tuned"), lookalike_cases("tuned")
    gate_missed = [case.text for case in secrets if not find_secrets(case.text)]
    gate_flagged = [case.text for case in lookalikes if find_secrets(case.text)]
    redaction_missed = [
        case.text
        for case in secrets
        if case.secret in redact(case.text).text
        or normalise(case.secret).text in normalise(redact(case.text).text).text
    ]
    redaction_changed = [case.text for case in lookalikes if redact(case.text).text != case.text]
    assert len(gate_missed) <= 0.01 * len(secrets), gate_missed
    assert len(redaction_missed) <= 0.01 * len(secrets), redaction_missed
    assert len(gate_flagged) <= 0.01 * len(lookalikes), gate_flagged
    assert len(redaction_changed) <= 0.01 * len(lookalikes), redaction_changed


def test_a_secret_found_only_after_decoding_masks_the_whole_encoded_segment():
    key = makers.FAMILIES["github_token"](random.Random(3))
    wrapped = base64.b64encode(key.encode()).decode()
    result = redact(f"config blob {wrapped} end")
    assert result.text == "config blob [REDACTED:github_token] end"


def test_a_disguised_finding_reports_the_span_of_the_original_text():
    key = makers.FAMILIES["huggingface_token"](random.Random(4))
    shown = key[:3] + "\u200b" + key[3:]
    text = f"HF：{shown}。"
    [finding] = find_secrets(text)
    assert text[finding.start : finding.end] == shown


def test_decoding_is_bounded_for_text_full_of_base64():
    blob = " ".join(
        base64.b64encode(f"line {n} of ordinary text".encode()).decode() for n in range(5000)
    )
    assert find_secrets(blob) == []
