"""Load: many agents at once on a live server, against the ceiling of the MCP stack itself.

    .venv/bin/python bench/load.py [--agents 50] [--duration 60] [--memories 10000] [--web-processes 1]

Team profile when DATABASE_URL (PostgreSQL) and REDIS_URL are set — a scratch database
and Redis database 14, as in mcp_latency.py — otherwise lite. Seeds the store, starts
uvicorn on `continuity.asgi:application`, and runs `--agents` concurrent agents (one token
each, the official Python MCP client over Streamable HTTP) for `--duration` seconds, each
looping over a mix of 60% memory_recall, 25% memory_remember (new statements) and 15%
memory_context. Then it drives a no-op server built on the same SDK (bench/noop_mcp_server.py)
with exactly the same load; both servers run `--web-processes` uvicorn processes. Prints,
for both, calls/s, p50/p95/p99 and errors, their ratios, the servers' resident memory (all
their processes) at the start and end of the run, and how busy the machine's CPUs were.

Targets: zero errors; Continuity's throughput >= 70% of the no-op server's; its p95 <=
1.5x the no-op's; memory flat over the run.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import mcp_latency as harness  # noqa: E402 - scratch storage, seeding and the server start
import recall_latency as corpus  # noqa: E402

TARGET_THROUGHPUT_RATIO = 0.70
TARGET_P95_RATIO = 1.5
MIX = (("memory_recall", 0.60), ("memory_remember", 0.25), ("memory_context", 0.15))


def process_tree(pid: int) -> list[int]:
    """pid and its descendants (uvicorn's --workers run as children of a supervisor)."""
    tree, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        tree.append(current)
        for task in Path(f"/proc/{current}/task").iterdir():
            waiting += [int(child) for child in (task / "children").read_text().split()]
    return tree


def rss_mb(pid: int) -> float:
    total = 0
    for member in process_tree(pid):
        for line in Path(f"/proc/{member}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def next_call(
    rng: random.Random, number: int, index: int, memories: int, queries: list[str]
) -> tuple[str, dict]:
    roll, tool = rng.random(), MIX[-1][0]
    for name, share in MIX:
        if roll < share:
            tool = name
            break
        roll -= share
    project = corpus.project_key(0 if index % 2 == 0 else 1 + index % (harness.PROJECTS - 1))
    query = queries[(number * 7919 + index) % len(queries)]
    if tool == "memory_recall":
        return tool, {"query": query, "project_key": project, "limit": corpus.LIMIT}
    if tool == "memory_context":
        return tool, {
            "query": query,
            "purpose": "coding",
            "token_budget": 800,
            "project_key": project,
        }
    content, tags, hints = corpus.statement(memories + 10_000_000 * (number + 1) + index)
    return tool, {"content": content, "kind": "fact", "scope_type": "project", "scope_key": project,
                  "tags": tags, "retrieval_hints": hints}  # fmt: skip


async def agent(
    url: str,
    token: str | None,
    number: int,
    deadline: float,
    memories: int,
    queries,
    samples,
    errors,
):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(number)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    index = 0
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            while time.perf_counter() < deadline:
                tool, arguments = next_call(rng, number, index, memories, queries)
                index += 1
                started = time.perf_counter()
                try:
                    result = await client.call_tool(tool, arguments)
                    failed = result.is_error
                    detail = result.content[0].text if failed else ""
                except Exception as error:  # noqa: BLE001 - a transport failure is an error
                    failed, detail = True, repr(error)
                samples.append((tool, (time.perf_counter() - started) * 1000))
                if failed:
                    errors.append(f"{tool}: {detail[:200]}")


async def drive(
    url: str, tokens: list[str | None], duration: float, memories: int, watch=None
) -> tuple[list, list, float]:
    """Run the agents until `duration` is over; `watch`, if given, is called at every sixth
    of it (the server's memory over the run)."""
    import anyio

    queries = [query for _, query in corpus.query_mix(500)]
    samples: list[tuple[str, float]] = []
    errors: list[str] = []
    started = time.perf_counter()
    deadline = started + duration

    async def watching():
        for _ in range(6):
            await anyio.sleep(duration / 6)
            watch()

    async with anyio.create_task_group() as group:
        for number, token in enumerate(tokens):
            group.start_soon(
                agent, url, token, number, deadline, memories, queries, samples, errors
            )
        if watch is not None:
            group.start_soon(watching)
    return samples, errors, time.perf_counter() - started


def summarise(
    label: str, samples, errors, seconds: float, rss: tuple[float, float], busy: float
) -> dict:
    latencies = [ms for _, ms in samples]
    figures = {
        "calls": len(samples), "errors": len(errors), "throughput": len(samples) / seconds,
        "p50": harness.percentile(latencies, 0.50), "p95": harness.percentile(latencies, 0.95),
        "p99": harness.percentile(latencies, 0.99), "rss_start": rss[0], "rss_end": rss[1],
    }  # fmt: skip
    print(f"{label:<12} {figures['calls']:>7} {figures['errors']:>6} {figures['throughput']:>8.1f}"
          f" {figures['p50']:>8.2f} {figures['p95']:>8.2f} {figures['p99']:>8.2f}"
          f" {rss[0]:>8.1f} {rss[1]:>8.1f} {busy:>6.0%}")  # fmt: skip
    for tool, _ in MIX:
        own = [ms for name, ms in samples if name == tool]
        if own:
            print(f"  {tool:<18} {len(own):>6} calls  p50 {harness.percentile(own, 0.5):7.2f}"
                  f"  p95 {harness.percentile(own, 0.95):7.2f} ms")  # fmt: skip
    if errors:
        print(f"  first error: {errors[0]}")
    return figures


def run_phase(
    label: str, process: subprocess.Popen, url: str, tokens, duration: float, memories: int
) -> dict:
    import anyio

    anyio.run(drive, url, tokens[:5], 3.0, memories)  # warm up: imports, caches, connections
    rss = [rss_mb(process.pid)]
    cpu_start = cpu_times()
    samples, errors, seconds = anyio.run(
        drive, url, tokens, duration, memories, lambda: rss.append(rss_mb(process.pid))
    )
    cpu_end = cpu_times()
    busy = (cpu_end[0] - cpu_start[0]) / max(cpu_end[1] - cpu_start[1], 1)
    figures = summarise(label, samples, errors, seconds, (rss[0], rss_mb(process.pid)), busy)
    print(f"  server RSS over the run (MB): {', '.join(f'{mb:.0f}' for mb in rss)}")
    return figures


def start_noop(log_path: Path, processes: int) -> tuple[subprocess.Popen, str]:
    import httpx

    port = harness.free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "bench.noop_mcp_server:app", "--host", "127.0.0.1", "--port", str(port),
         "--no-access-log", "--log-level", "warning", "--workers", str(processes)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"no-op server exited:\n{log_path.read_text()}")
        try:
            httpx.post(url, json={}, timeout=2)  # any HTTP answer means it is listening
            return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"no-op server did not start:\n{log_path.read_text()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--web-processes", type=int, default=1, help="uvicorn processes per server")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL", "")
    profile, scratch_db, data_dir = harness.prepare_environment()
    processes = []
    try:
        _, tokens = harness.seed(args.memories, args.agents)
        server, url = harness.start_server(Path(data_dir) / "uvicorn.log", args.web_processes)
        processes.append(server)
        print(f"profile: {profile}; {args.memories} memories; {args.agents} agents for {args.duration:.0f} s "
              f"each; {args.web_processes} uvicorn process(es) per server on loopback; official Python MCP "
              f"client; {os.cpu_count()} CPUs")  # fmt: skip
        print(f"{'server':<12} {'calls':>7} {'errors':>6} {'calls/s':>8} {'p50 ms':>8} {'p95 ms':>8}"
              f" {'p99 ms':>8} {'RSS0 MB':>8} {'RSS1 MB':>8} {'CPUs':>6}")  # fmt: skip
        ours = run_phase("continuity", server, url, tokens, args.duration, args.memories)
        server.terminate()
        server.wait(timeout=30)

        noop, noop_url = start_noop(Path(data_dir) / "noop.log", args.web_processes)
        processes.append(noop)
        ceiling = run_phase(
            "no-op", noop, noop_url, [None] * args.agents, args.duration, args.memories
        )
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)
        if scratch_db:
            from django.db import connections

            connections.close_all()
            harness.drop_database(admin_url, scratch_db)
        shutil.rmtree(data_dir, ignore_errors=True)

    throughput_ratio = ours["throughput"] / ceiling["throughput"]
    p95_ratio = ours["p95"] / ceiling["p95"]
    print()
    print(
        f"throughput: {throughput_ratio:.0%} of the no-op server's (target >= {TARGET_THROUGHPUT_RATIO:.0%})"
    )
    print(f"p95: {p95_ratio:.2f}x the no-op server's (target <= {TARGET_P95_RATIO}x)")
    print(
        f"errors: {ours['errors']} (target 0); server RSS {ours['rss_start']:.0f} -> {ours['rss_end']:.0f} MB"
    )
    load_1, load_5, _ = os.getloadavg()
    print(f"machine load: {load_1:.1f} (1 min), {load_5:.1f} (5 min) on {os.cpu_count()} CPUs")
    return 1 if ours["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
