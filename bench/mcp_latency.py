"""MCP latency on loopback: `memory_recall` and `memory_remember` through the whole door.

    .venv/bin/python bench/mcp_latency.py [--memories 10000] [--calls 200] [--clients 16]
                                          [--mode legacy|2026-07-28]

Seeds a scratch store with `--memories` memories (the same heavy-user corpus as
recall_latency.py: 10% global, 20 projects, English/Chinese/mixed; with semantic recall on,
vectors for all of them, made as recall_latency.py makes them), starts uvicorn serving
`continuity.asgi:application` on a free loopback port, and drives it with the official
Python MCP client over Streamable HTTP with bearer tokens: first one client calling
sequentially, then `--clients` clients at once (one token each, as separate agents would
be). Prints p50/p95/p99/max per tool and phase, throughput, and the errors counted (tool
errors and transport failures). Every call is timed at the client, so the figures include
HTTP, JSON-RPC, authentication, the rate-limit counter, the worker-thread hop and the
database.

Profile: lite (a temporary SQLite data dir) by default; team when DATABASE_URL and
REDIS_URL are set (a scratch PostgreSQL database created and dropped here, and Redis
database 14 so no counter or queued task of a real deployment is touched).

Targets: sequential recall p95 <= 30 ms on lite; no errors under concurrency. Exit status 1
when any call failed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import recall_latency as corpus  # noqa: E402 - the shared fabricated store and query mix

TARGET_SEQUENTIAL_RECALL_P95_MS = 30.0
WARMUP = 20
PROJECTS = 20
BENCH_REDIS_DB = "14"


def with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{path}"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --- the store ------------------------------------------------------------------------------


def prepare_environment() -> tuple[str, str | None, str]:
    """Point this process (and the server it starts) at scratch storage; returns (profile,
    scratch PostgreSQL database or None, data dir)."""
    data_dir = tempfile.mkdtemp(prefix="continuity-bench-mcp-")
    os.environ["CONTINUITY_DATA_DIR"] = data_dir
    os.environ["DJANGO_SETTINGS_MODULE"] = "continuity.settings"
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        import psycopg

        name = f"continuity_bench_mcp_{secrets.token_hex(4)}"
        with psycopg.connect(url, dbname="postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        os.environ["DATABASE_URL"] = with_path(url, name)
        for variable in ("REDIS_URL", "CELERY_BROKER_URL"):
            if os.environ.get(variable):
                os.environ[variable] = with_path(os.environ[variable], BENCH_REDIS_DB)
        return "team", name, data_dir
    os.environ.pop("DATABASE_URL", None)  # never a SQLite file of someone's: the data dir
    return "lite", None, data_dir


def drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, dbname="postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(memories: int, clients: int) -> tuple[str, list[str]]:
    """Migrate, load the corpus, issue tokens; returns (sequential token, client tokens)."""
    import logging

    import django

    django.setup()
    # One line per HTTP request from the client library would drown the figures.
    for name in ("httpx", "httpx2", "mcp"):
        logging.getLogger(name).setLevel(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from accounts.tokens import token_create
    from foundation.actors import Actor

    call_command("migrate", verbosity=0, skip_checks=True)
    owner = get_user_model().objects.create_user("bench-owner")
    started = time.perf_counter()
    corpus.load(owner, 0, memories, PROJECTS)
    corpus.analyze()
    print(f"seeded {memories} memories in {time.perf_counter() - started:.1f} s")
    from django.conf import settings

    if settings.CONTINUITY_EMBEDDER not in ("", "none"):
        # As an instance whose back-fill is done: the semantic channel scores real rows.
        real = min(memories, 1000)
        rate = corpus.embed_for_real(owner, real)
        corpus.add_vectors(owner, real, memories)
        print(
            f"vectors for all {memories}: {real} embedded ({rate:.0f}/s), the rest derived from them"
        )

    def issue(name: str) -> str:
        _, raw = token_create(
            actor=Actor.owner(owner), name=name, agent_name=name,
            scopes=["memories:read", "memories:write"], expires_in_days=1,
        )  # fmt: skip
        return raw

    sequential = issue("bench-sequential")
    concurrent = [issue(f"bench-client-{number:02d}") for number in range(clients)]
    connections.close_all()
    return sequential, concurrent


# --- the server -----------------------------------------------------------------------------


def start_server(log_path: Path, processes: int = 1) -> tuple[subprocess.Popen, str]:
    """uvicorn serving Continuity with `processes` web processes (uvicorn's --workers)."""
    import httpx

    port = free_port()
    log = open(log_path, "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--lifespan", "on", "--no-access-log", "--log-level", "warning",
         "--workers", str(processes)],
        cwd=ROOT, env=dict(os.environ), stdin=subprocess.DEVNULL, stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"uvicorn exited:\n{log_path.read_text()}")
        with contextlib.suppress(httpx.TransportError):  # not listening yet
            if httpx.post(url, json={}, timeout=2).status_code == 401:
                return process, url
        time.sleep(0.1)
    process.terminate()
    raise SystemExit(f"uvicorn did not start:\n{log_path.read_text()}")


# --- the clients ----------------------------------------------------------------------------


class Tally:
    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = {"memory_recall": [], "memory_remember": []}
        self.errors: dict[str, int] = {"memory_recall": 0, "memory_remember": 0}
        self.first_error: str | None = None

    def add(self, other: Tally) -> None:
        for tool in self.samples:
            self.samples[tool] += other.samples[tool]
            self.errors[tool] += other.errors[tool]
        self.first_error = self.first_error or other.first_error


def workload(number: int, calls: int, memories: int) -> list[tuple[str, dict]]:
    """`calls` recalls and `calls` remembers, interleaved; new statements never seeded."""
    queries = [query for _, query in corpus.query_mix(max(calls, 100))]
    work = []
    for index in range(calls):
        big = index % 2 == 0
        project = corpus.project_key(0 if big else 1 + index % (PROJECTS - 1))
        work.append(("memory_recall", {"query": queries[(number + index) % len(queries)], "project_key": project,
                                       "limit": corpus.LIMIT}))  # fmt: skip
        content, tags, hints = corpus.statement(memories + 1_000_000 * (number + 1) + index)
        work.append(("memory_remember", {
            "content": content, "kind": "fact", "scope_type": "project",
            "scope_key": corpus.project_key(0), "tags": tags, "retrieval_hints": hints,
        }))  # fmt: skip
    return work


async def run_client(url: str, token: str, work, mode: str) -> Tally:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    tally = Tally()
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            for tool, arguments in work:
                started = time.perf_counter()
                try:
                    result = await client.call_tool(tool, arguments)
                    failed = result.is_error
                    detail = result.content[0].text if failed else None
                except Exception as error:  # noqa: BLE001 - a transport failure is an error too
                    failed, detail = True, repr(error)
                tally.samples[tool].append((time.perf_counter() - started) * 1000)
                if failed:
                    tally.errors[tool] += 1
                    tally.first_error = tally.first_error or f"{tool}: {detail}"
    return tally


async def warm_up(url: str, token: str, mode: str) -> None:
    work = [("memory_recall", {"query": query, "project_key": corpus.project_key(0)})
            for _, query in corpus.query_mix(WARMUP)]  # fmt: skip
    await run_client(url, token, work, mode)


async def concurrently(url: str, tokens: list[str], calls: int, memories: int, mode: str) -> Tally:
    import anyio

    total = Tally()
    per_client = max(1, calls // len(tokens))

    async def one(number: int, token: str) -> None:
        total.add(await run_client(url, token, workload(number, per_client, memories), mode))

    async with anyio.create_task_group() as group:
        for number, token in enumerate(tokens):
            group.start_soon(one, number, token)
    return total


def report(label: str, tally: Tally, seconds: float) -> None:
    for tool, samples in tally.samples.items():
        if not samples:
            continue
        print(f"{label:<14} {tool:<16} {len(samples):>6} {tally.errors[tool]:>6}"
              f" {statistics.median(samples):>7.2f} {percentile(samples, 0.95):>7.2f}"
              f" {percentile(samples, 0.99):>7.2f} {max(samples):>7.2f}"
              f" {len(samples) / seconds:>8.1f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200, help="calls per tool and phase")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--mode", default="legacy", help="client protocol: legacy or 2026-07-28")
    args = parser.parse_args()

    import anyio

    admin_url = os.environ.get("DATABASE_URL", "")
    profile, scratch_db, data_dir = prepare_environment()
    server = None
    try:
        sequential_token, client_tokens = seed(args.memories, args.clients)
        server, url = start_server(Path(data_dir) / "uvicorn.log")
        print(f"profile: {profile}; {args.memories} memories; one uvicorn process on loopback; "
              f"official Python MCP client, {args.mode} protocol; rate limit on, one token "
              f"per client")  # fmt: skip
        print(f"{'phase':<14} {'tool':<16} {'calls':>6} {'errors':>6} {'p50 ms':>7} {'p95 ms':>7}"
              f" {'p99 ms':>7} {'max ms':>7} {'calls/s':>8}")  # fmt: skip

        anyio.run(warm_up, url, sequential_token, args.mode)
        started = time.perf_counter()
        sequential = anyio.run(
            run_client, url, sequential_token, workload(0, args.calls, args.memories), args.mode
        )
        report("sequential", sequential, time.perf_counter() - started)

        started = time.perf_counter()
        together = anyio.run(concurrently, url, client_tokens, args.calls, args.memories, args.mode)
        report(f"{args.clients} clients", together, time.perf_counter() - started)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        if scratch_db:
            from django.db import connections

            connections.close_all()
            drop_database(admin_url, scratch_db)
        shutil.rmtree(data_dir, ignore_errors=True)

    recall_p95 = percentile(sequential.samples["memory_recall"], 0.95)
    errors = sum(sequential.errors.values()) + sum(together.errors.values())
    print()
    if profile == "lite":
        verdict = "met" if recall_p95 <= TARGET_SEQUENTIAL_RECALL_P95_MS else "MISSED"
        print(f"sequential recall p95: {recall_p95:.2f} ms (target <= "
              f"{TARGET_SEQUENTIAL_RECALL_P95_MS:.0f} ms on lite: {verdict})")  # fmt: skip
    else:
        print(f"sequential recall p95: {recall_p95:.2f} ms")
    print(f"errors: {errors} (under concurrency: {sum(together.errors.values())}; target 0)")
    if sequential.first_error or together.first_error:
        print(f"first error: {sequential.first_error or together.first_error}")
    load_1, load_5, _ = os.getloadavg()
    print(f"machine load: {load_1:.1f} (1 min), {load_5:.1f} (5 min) on {os.cpu_count()} CPUs"
          " - figures from a busy machine overstate latency")  # fmt: skip
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
