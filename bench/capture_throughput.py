"""Capture ingestion throughput: events per second through one worker's code path.

    .venv/bin/python bench/capture_throughput.py [--batches 40] [--items 1000]

Generates Claude Code transcript batches of realistic mixed English/Chinese turns (a
prompt, a reply, a tool call and its result, a final reply; about one prompt in five holds
a secret, a card or an ID number; some carry explicit memory cues), posts them with
`batch_submit` (enqueue disabled), then times `batch_start` + `batch_process` for each, the
work an ingestion task does: parse, redact, fingerprint, insert, checkpoint, extraction.
Then the same batches on fresh threads with extraction switched off (the ledger alone),
and parse + redact with no database at all, to show where the time goes.

SQLite by default (a temporary data directory); the PostgreSQL of DATABASE_URL (with
REDIS_URL) into a scratch database `test_<name>_capture_<pid>` it creates and drops.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("CONTINUITY_DATA_DIR", tempfile.mkdtemp(prefix="continuity-bench-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

from accounts.tokens import token_create  # noqa: E402
from capture import adapters, extraction  # noqa: E402
from capture.models import ConversationEvent  # noqa: E402
from capture.redaction import redact  # noqa: E402
from capture.services import ingest  # noqa: E402
from foundation.actors import Actor  # noqa: E402

PROMPTS = [
    "Please refactor the payment module so the retry logic lives in one place.",
    "请帮我把这个函数改成异步的，并补上单元测试。",
    "Why does the CI job fail only on Python 3.13? The log says ImportError in conftest.",
    "以后所有的迁移脚本都要先在预发环境跑一遍再上线。",
    "Remember that we deploy with Kamal to two hosts behind a load balancer.",
    "我们决定用 Redis 做缓存，TTL 默认 10 分钟。",
    "Can you explain what this regex does: ^(?:[a-z0-9-]+\\.)+[a-z]{2,}$",
    "From now on, run the test suite with -p no:cacheprovider.",
]
SECRETS = [
    "the staging password is Zq8!vR2#kL9x, use it for the smoke test",
    "测试卡号 4111 1111 1111 1111，有效期 09/29",
    "export OPENAI_API_KEY=sk-proj-Q8vX2mL9rT4kW7nB3cY6hJ1pZ5dF0gA8sE2u",
    "我的身份证号是11010519491231002X",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc123XYZ",
]
REPLIES = [
    "I moved the retry policy into `payments/retry.py` and the three callers now use it.",
    "好的，我已经把函数改成了 async，并在 tests/test_sync.py 里加了四个测试用例。",
    "The failure comes from a removed `imp` module; I replaced it with importlib.",
    "明白了，以后先在预发环境验证迁移。",
]


def transcript(batch: int, items: int, rng: random.Random) -> list[dict]:
    lines, turn = [], 0
    while len(lines) < items:
        turn += 1
        uid = f"b{batch}-t{turn}"
        prompt = rng.choice(PROMPTS)
        if rng.random() < 0.2:
            prompt += " " + rng.choice(SECRETS)
        at = f"2026-11-20T10:{turn % 60:02d}:00.000Z"
        lines += [
            {"type": "user", "uuid": uid, "timestamp": at, "message": {"role": "user", "content": prompt}},
            {"type": "assistant", "uuid": uid + "a", "timestamp": at, "message": {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look at the code first."}]}},
            {"type": "assistant", "uuid": uid + "b", "timestamp": at, "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{uid}", "name": "Read", "input": {"file_path": f"/src/m{turn}.py"}}]}},
            {"type": "user", "uuid": uid + "c", "timestamp": at, "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{uid}", "content": "     1→import os\n" * 20}]}},
            {"type": "assistant", "uuid": uid + "d", "timestamp": at, "message": {"role": "assistant", "content": [
                {"type": "text", "text": rng.choice(REPLIES)}]}},
        ]  # fmt: skip
    return lines[:items]


def run(actor, batches: list[list[dict]], prefix: str, label: str) -> None:
    ids = [
        ingest.batch_submit(
            actor=actor,
            source="claude_code",
            thread_id=f"{prefix}-{n % 4}",
            items=items,
            size_bytes=0,
        ).pk  # fmt: skip
        for n, items in enumerate(batches)
    ]
    before = ConversationEvent.objects.count()
    timings = []
    server_cpu = backend_cpu_seconds()
    cpu = time.process_time()
    for batch_id in ids:
        began = time.perf_counter()
        ingest.batch_start(batch_id=batch_id)
        ingest.batch_process(batch_id=batch_id)
        timings.append(time.perf_counter() - began)
    cpu = time.process_time() - cpu
    if server_cpu is not None:
        server_cpu = backend_cpu_seconds() - server_cpu
    stored, total = ConversationEvent.objects.count() - before, sum(timings)
    timings.sort()
    # CPU seconds of this process next to wall seconds: on a busy machine the gap is time
    # spent waiting for a core (and, on PostgreSQL, for the server).
    print(f"{label}: {stored:,} events in {total:.2f} s = {stored / total:,.0f} events/s "
          f"(per batch p50 {timings[len(timings) // 2] * 1000:.0f} ms, max {timings[-1] * 1000:.0f} ms; "
          f"this process used {cpu:.2f} s CPU)")  # fmt: skip
    if server_cpu is not None:
        busy = cpu + server_cpu
        print(f"  + the PostgreSQL backend used {server_cpu:.2f} s CPU: {stored / busy:,.0f} events per "
              f"CPU second of client and server together")  # fmt: skip


def backend_cpu_seconds() -> float | None:
    """CPU seconds this connection's PostgreSQL backend has used, when the server runs on
    this machine (read from /proc); None otherwise."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(7)
    batches = [transcript(n, args.items, rng) for n in range(args.batches)]

    started = time.perf_counter()
    parsed_events = 0
    for items in batches:
        for event in adapters.parse("claude_code", items).events:
            parsed_events += 1
            if not event.is_marker:
                redact(event.text)
    pure = time.perf_counter() - started

    if connection.vendor == "postgresql":
        settings_dict = connection.settings_dict
        settings_dict.setdefault("TEST", {})["NAME"] = (
            f"test_{settings_dict['NAME']}_capture_{os.getpid()}"
        )
    old_config = setup_databases(verbosity=0, interactive=False)
    try:
        call_command("migrate", verbosity=0)
        owner = get_user_model().objects.create_user("bench-owner")
        token, _ = token_create(actor=Actor.owner(owner), name="bench", agent_name="claude-code",
                                scopes=["capture:write"], expires_in_days=1)  # fmt: skip
        actor = Actor.agent(token)
        ingest.enqueue = lambda batch_id: None  # the bench drives the worker path itself
        print(
            f"database: {connection.vendor}; {args.batches} batches x {args.items} transcript lines"
        )
        print(f"parse + redact only (no database): {parsed_events / pure:,.0f} events/s")
        run(
            actor,
            batches,
            "full",
            "worker path (parse, redact, fingerprint, insert, checkpoint, extraction)",
        )
        real_extraction = extraction.extract
        extraction.extract = lambda events, project_key: []
        try:
            run(actor, batches, "ledger", "ledger alone (the same without extraction)")
        finally:
            extraction.extract = real_extraction
    finally:
        teardown_databases(old_config, verbosity=0)


if __name__ == "__main__":
    main()
