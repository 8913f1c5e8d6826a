"""Each adapter on its fabricated fixture: what becomes an event, what is skipped and why."""

from __future__ import annotations

from capture.adapters import parse
from capture.markers import INJECTION_CLOSE, INJECTION_OPEN
from tests.capture.helpers import items_of


def shape(parsed):
    return [(e.role, e.item_type, e.is_marker, e.is_final) for e in parsed.events]


def texts(parsed):
    return [e.text for e in parsed.events if not e.is_marker]


def test_claude_code_keeps_prompts_replies_markers_and_compaction_and_skips_harness_lines():
    parsed = parse("claude_code", items_of("claude_code"))

    assert shape(parsed) == [
        ("user", "message", False, False),
        ("assistant", "reasoning", True, False),
        ("assistant", "message", False, False),
        ("tool", "tool_call", True, False),
        ("tool", "tool_result", True, False),
        ("assistant", "message", False, True),
        ("compaction", "compaction_summary", False, False),
        ("user", "message", False, False),
        ("assistant", "message", False, True),
    ]
    assert [(e.run_id, e.seq) for e in parsed.events][:2] == [("u-1", 0), ("u-1", 1)]
    assert parsed.events[-2].run_id == "u-7" and parsed.events[-2].seq == 0
    assert dict(parsed.skipped) == {
        "not_conversation": 4, "harness_text": 2, "sidechain": 1, "injected_context": 1, "invalid": 1,
    }  # fmt: skip


def test_claude_code_strips_injected_memory_and_system_reminders_from_the_prompt():
    first = parse("claude_code", items_of("claude_code")).events[0]
    assert first.text == "From now on, run the tests with -p no:cacheprovider."
    assert not any(
        INJECTION_OPEN in t or "system-reminder" in t
        for t in texts(parse("claude_code", items_of("claude_code")))
    )


def test_a_user_line_that_is_only_an_injected_block_is_skipped_as_injected_context():
    line = {
        "type": "user", "uuid": "u-x", "timestamp": "2026-11-20T10:00:00Z",
        "message": {"role": "user", "content": f'{INJECTION_OPEN} type="reference-data">\n- fact\n{INJECTION_CLOSE}'},
    }  # fmt: skip
    parsed = parse("claude_code", [line])
    assert parsed.events == [] and dict(parsed.skipped) == {"injected_context": 1}


def test_codex_keeps_response_items_once_and_marks_the_final_answer():
    parsed = parse("codex", items_of("codex"))

    assert shape(parsed) == [
        ("user", "message", False, False),
        ("assistant", "reasoning", True, False),
        ("tool", "tool_call", True, False),
        ("tool", "tool_result", True, False),
        ("assistant", "message", False, False),  # phase: commentary
        ("assistant", "message", False, True),  # phase: final_answer
        ("compaction", "compaction_summary", False, False),
        ("user", "message", False, False),
        ("assistant", "message", False, True),  # no phase: the run's last reply
    ]
    assert texts(parsed)[-2] == "以后所有迁移都要先在预发环境跑一遍。"
    # event_msg copies, metadata, developer and environment messages, a payload-less line
    assert dict(parsed.skipped) == {"not_conversation": 6, "harness_text": 2, "invalid": 1}
    assert "Thinking about the database URL" not in repr(parsed.events)


def test_memorycenter_turns_are_runs_of_a_prompt_and_a_final_reply():
    parsed = parse("memorycenter", items_of("memorycenter"))
    assert [(e.run_id, e.seq, e.role, e.is_final) for e in parsed.events] == [
        ("turn-1", 0, "user", False), ("turn-1", 1, "assistant", True),
        ("turn-2", 0, "user", False), ("turn-2", 1, "assistant", True),
    ]  # fmt: skip
    assert dict(parsed.skipped) == {"invalid": 2}


def test_plain_text_reads_english_and_chinese_labels_and_continuation_lines():
    parsed = parse("text", items_of("text"))
    assert [(e.role, e.is_final) for e in parsed.events] == [
        ("user", False),
        ("assistant", True),
    ] * 3
    assert (
        texts(parsed)[1]
        == "Got it, staging.internal is the staging server.\nIt runs the same image as production."
    )
    assert texts(parsed)[2] == "以后回答请用中文。"
    assert dict(parsed.skipped) == {"unlabelled": 1}


def test_plain_text_sent_again_gets_the_same_runs_and_a_repeated_prompt_a_new_run():
    first = parse("text", ["User: continue\nAssistant: ok\nUser: continue\nAssistant: done"])
    again = parse("text", ["User: continue\nAssistant: ok\nUser: continue\nAssistant: done"])
    runs = [e.run_id for e in first.events]
    assert runs == [e.run_id for e in again.events]
    assert runs[0] == runs[1] != runs[2] == runs[3]


def test_generic_takes_given_runs_and_sequences_and_skips_invalid_items():
    parsed = parse("generic", items_of("generic"))
    assert [(e.run_id, e.seq, e.role, e.is_marker, e.is_final) for e in parsed.events][:3] == [
        ("r-1", 0, "user", False, False), ("r-1", 1, "tool", True, False),
        ("r-1", 2, "assistant", False, True),
    ]  # fmt: skip
    assert parsed.events[3].run_id not in (None, "r-1") and parsed.events[4].is_final
    assert dict(parsed.skipped) == {"invalid": 2}


def test_items_before_the_first_prompt_continue_an_earlier_run():
    parsed = parse(
        "generic",
        [{"role": "assistant", "text": "still working"}, {"role": "user", "text": "next"}],
    )
    assert [(e.run_id, e.seq) for e in parsed.events][0] == (None, 0)
    assert parsed.events[1].run_id is not None


def test_garbage_items_are_skipped_never_raised():
    for source in ("claude_code", "codex", "memorycenter", "text", "generic"):
        parsed = parse(
            source, [None, 3, [], {"type": {"x": 1}}, {"payload": "x", "type": "response_item"}]
        )
        assert parsed.events == [] and parsed.skipped_count == 5, source
