"""Hostile input for the pure parts that read untrusted text: every adapter, redaction,
the secret gate and the poisoning rules. Whatever they are given — arbitrary JSON shapes,
control characters, huge numbers, mixed scripts — they answer (a parse with skipped items,
a redaction, a ServiceError) and never raise anything else. Bounded example counts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capture import adapters, redaction
from capture.models import Source
from foundation.errors import ServiceError
from memories import gates, poisoning

ROBUST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(list("用户助手：:\n\t{}[]\"'`<>|")),
    max_size=400,
)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | texts
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(texts | st.sampled_from(
        ["type", "role", "text", "content", "message", "payload", "uuid", "timestamp", "user_message",
         "llm_message", "item_type", "run_id", "seq", "final"]), children, max_size=6),
    max_leaves=30,
)  # fmt: skip
# Shapes close to the real formats, so the fuzz reaches past the first type check.
near_valid = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "response_item", "event_msg", "summary", "system"]),
     "message": st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool"]),
                                       "content": texts | st.lists(json_values, max_size=3)})},
    optional={"uuid": texts, "timestamp": texts | st.integers(), "payload": json_values,
              "role": texts, "text": texts, "user_message": texts, "llm_message": texts},
)  # fmt: skip


@pytest.mark.parametrize("source", Source.values)
@ROBUST
@given(items=st.lists(json_values | near_valid | texts, max_size=12))
def test_adapters_parse_anything_without_raising(source, items):
    parsed = adapters.parse(source, items)
    for event in parsed.events:
        assert event.role in ("user", "assistant", "tool", "compaction")
        assert isinstance(event.text, str)


@ROBUST
@given(text=texts)
def test_capture_redaction_returns_text_and_counts_for_anything(text):
    result = redaction.redact(text)
    assert isinstance(result.text, str) and len(result.original_sha256) == 64
    assert all(isinstance(count, int) and count > 0 for count in result.counts.values())
    assert redaction.redact(result.text).text == result.text  # redacting twice changes nothing more


@ROBUST
@given(
    fields=st.dictionaries(st.sampled_from(["content", "key", "tags", "value"]), texts, max_size=4)
)
def test_the_secret_gate_passes_or_refuses_with_a_service_error(fields):
    try:
        gates.check_no_secrets(fields)
    except ServiceError as error:
        assert error.code == "SECRET_REJECTED"
        for value in fields.values():
            for finding in gates.find_secrets(value):
                assert value[finding.start : finding.end] not in error.message


@ROBUST
@given(text=texts)
def test_the_poisoning_rules_read_anything(text):
    for finding in poisoning.scan_text(text):
        assert finding.rule and finding.field == "content"
