"""Extraction rules: which sentences become candidates, in English, Chinese and mixed text,
with what kind, content, scope and confidence. Events are stored directly as rows."""

from __future__ import annotations

import pytest

from capture.extraction import find_proposals, propose_candidates
from capture.models import Candidate
from capture.signals import sentences, signal_in

from .inbox_helpers import conversation, event, thread_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("sentence", "content", "kind"),
    [
        (
            "Remember that the staging database listens on port 5433.",
            "The staging database listens on port 5433",
            "fact",
        ),
        (
            "Please remember: never commit generated files.",
            "Never commit generated files",
            "constraint",
        ),
        ("From now on, answer in British English.", "Answer in British English", "preference"),
        ("I prefer small focused commits.", "I prefer small focused commits", "preference"),
        (
            "We decided to use PostgreSQL for the team profile.",
            "We decided to use PostgreSQL for the team profile",
            "decision",
        ),
        ("Don't ever force-push to main.", "Don't ever force-push to main", "constraint"),
        (
            "Always run the linter before committing.",
            "Always run the linter before committing",
            "constraint",
        ),
        ("请记住：部署前必须先跑完整测试。", "部署前必须先跑完整测试", "constraint"),
        ("记住，生产库在 10.0.0.5 上。", "生产库在 10.0.0.5 上", "fact"),
        ("以后提交信息都用英文写。", "提交信息都用英文写", "preference"),
        ("我偏好简洁的回答。", "我偏好简洁的回答", "preference"),
        ("我更喜欢用 pytest 而不是 unittest。", "我更喜欢用 pytest 而不是 unittest", "preference"),
        ("我希望代码注释用中文写。", "我希望代码注释用中文写", "preference"),
        ("我们决定用 Redis 做缓存！", "我们决定用 Redis 做缓存", "decision"),
        ("不要再用 print 调试了。", "不要再用 print 调试了", "constraint"),
        ("永远不要把密钥写进代码库。", "永远不要把密钥写进代码库", "constraint"),
    ],
)
def test_an_explicit_signal_becomes_a_cleaned_statement_of_the_right_kind(sentence, content, kind):
    found = signal_in(sentence)
    assert found is not None and (found.content, found.kind) == (content, kind)
    assert found.sentence == sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "Do you remember what we decided about the cache?",
        "I don't know if we decided on Redis.",
        "Can you remember to check the logs?",
        "Remember when the deploy broke last week",
        "Maybe we should always use tabs.",
        'He said "always use tabs for Go files".',
        "Don't worry about the flaky test.",
        "Remember my password is [REDACTED:password_assignment].",
        "你还记得我们上次决定了什么吗？",
        "我不确定我们是否决定用 Redis。",
        "以后再说吧？",
        "如果以后有时间，我们决定重写它。",
        "记住了吗",
    ],
)
def test_questions_hedges_quotes_and_redactions_are_not_signals(sentence):
    assert signal_in(sentence) is None


def test_sentences_split_on_chinese_and_english_punctuation_in_mixed_text():
    text = "好的。以后用 uv 管理依赖！Also, I prefer ruff. 我们决定用 Postgres；不要再用 MySQL\n最后一行"
    assert sentences(text) == [
        "好的。", "以后用 uv 管理依赖！", "Also, I prefer ruff.", "我们决定用 Postgres；", "不要再用 MySQL", "最后一行",
    ]  # fmt: skip


def test_code_blocks_and_quoted_lines_never_feed_extraction():
    text = "```\n# remember that the token lives in .env\n```\n> I prefer tabs, said the old guide.\nThanks `always retry`."
    assert [sentence for sentence in sentences(text) if signal_in(sentence)] == []


def test_only_user_messages_and_final_assistant_replies_feed_extraction(owner):
    thread = thread_of(owner)
    events = [
        event(thread, "user", "Remember that the api runs on port 8080."),
        event(thread, "tool", "Remember that the tool output lies."),
        event(thread, "assistant", "I'll remember that the draft reply is long.", final=False),
        event(thread, "assistant", "", marker=True),
        event(thread, "compaction", "Remember that summaries are not statements."),
        event(
            thread,
            "assistant",
            "Noted. We decided to keep the api on port 8080 in this repo.",
            final=True,
        ),
    ]
    contents = sorted(proposal.content for proposal in find_proposals(events))
    assert contents == [
        "The api runs on port 8080",
        "We decided to keep the api on port 8080 in this repo",
    ]


def test_an_assistant_restatement_and_an_unanswered_message_get_lower_confidence(owner):
    thread = thread_of(owner)
    answered = conversation(
        thread, ("user", "I prefer short answers."), ("assistant", "We decided to ship on Fridays.")
    )
    unanswered = [event(thread, "user", "I prefer long answers.")]
    by_content = {
        proposal.content: proposal.confidence for proposal in find_proposals(answered + unanswered)
    }
    assert by_content["I prefer short answers"] == 0.8
    assert by_content["We decided to ship on Fridays"] == 0.6  # the assistant's own words
    by_content = {proposal.content: proposal.confidence for proposal in find_proposals(unanswered)}
    assert by_content["I prefer long answers"] == pytest.approx(0.65)


def test_truncated_text_gets_lower_confidence(owner):
    thread = thread_of(owner)
    events = conversation(
        thread,
        ("user", "Remember that the build cache lives in /var/cache/build and…"),
        ("assistant", "OK"),
    )
    (proposal,) = find_proposals(events)
    assert proposal.confidence == pytest.approx(0.75)


def test_find_proposals_reads_nothing_from_the_database(owner, django_assert_num_queries):
    thread = thread_of(owner, project_key="github:ada/api")
    events = conversation(
        thread, ("user", "We decided to use uv in this repo."), ("assistant", "Done.")
    )
    for one in events:
        one.thread = thread  # the ingestion task holds the thread it stores events for
    with django_assert_num_queries(0):
        proposals = find_proposals(events)
    assert [(p.scope_type, p.scope_key) for p in proposals] == [("project", "github:ada/api")]


def test_project_scope_needs_a_project_key_and_a_project_statement_or_a_decision(owner):
    thread = thread_of(owner, project_key="github:ada/api")
    events = conversation(
        thread,
        ("user", "From now on, use pnpm in this repo. I prefer dark themes. 我们决定每周五发布。"),
        ("assistant", "OK."),
    )
    propose_candidates(thread, events, agent_name="claude-code")
    scopes = dict(Candidate.objects.values_list("content", "scope_key"))
    assert scopes == {
        "Use pnpm in this repo": "github:ada/api",
        "I prefer dark themes": "",
        "我们决定每周五发布": "github:ada/api",
    }
    keyless = thread_of(owner, "session-2")
    events = conversation(
        keyless, ("user", "From now on, use yarn in this repo."), ("assistant", "OK.")
    )
    propose_candidates(keyless, events, agent_name="claude-code")
    assert Candidate.objects.get(content="Use yarn in this repo").scope_type == "global"


def test_a_proposed_candidate_is_private_pending_with_its_evidence(owner):
    thread = thread_of(owner, agent="codex")
    events = conversation(
        thread, ("user", "好的。请记住：周报每周一上午发。"), ("assistant", "好的。")
    )
    assert propose_candidates(thread, events, agent_name="codex") == 1
    candidate = Candidate.objects.get()
    assert (candidate.status, candidate.content, candidate.kind) == (
        "pending",
        "周报每周一上午发",
        "fact",
    )
    assert candidate.agents == ["codex"] and candidate.rule == "zh.remember"
    (evidence,) = candidate.evidence
    assert (
        evidence["sentence"] == "请记住：周报每周一上午发。"
        and evidence["event_id"] == events[0].pk
    )
    assert evidence["thread_id"] == thread.pk and evidence["agent"] == "codex"
    assert evidence["fingerprint"] == events[0].fingerprint and evidence["at"]
