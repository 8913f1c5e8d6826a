"""Prompt hook latency from process start: `continuity hook claude-prompt` as an agent runs it.

    .venv/bin/python bench/prompt_hook_latency.py [--memories 500] [--runs 50] [--embedder none]

Builds a scratch lite store (a temporary data dir: SQLite) with `--memories` owner-confirmed
shared memories (English, Chinese and mixed; a quarter in the benchmark's project), starts
uvicorn on a free loopback port, and runs the installed hook `--runs` times as a fresh
subprocess, each time with a prompt about one of the memories and a fabricated git checkout as
its workspace. Each run is timed from just before the process is spawned to its exit, so the
figure includes interpreter start, imports, reading .git/config, HTTP, the server's injection
and printing. Also printed: the floor (the same hook against a closed port, i.e. start-up and
fail-open cost), the server-side latency the receipts recorded, and why calls came back
empty. `--embedder none` runs the server without the semantic channel (CONTINUITY_EMBEDDER).

Target: p95 <= 120 ms with the server on loopback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".venv" / "bin" / "continuity"
PROJECT_REMOTE = "git@github.com:bench/shop.git"
TOPICS = [
    ("deploys with blue-green releases on Fridays", "how do we deploy on Fridays?"),
    ("keeps carts in Redis with a one hour expiry", "where are carts kept?"),
    ("runs the test suite with pytest -p no:cacheprovider", "how do I run the tests?"),
    ("支付服务部署在杭州区域的 Kubernetes 集群", "支付服务部署在哪里？"),
    ("前端项目使用 pnpm 管理依赖", "前端用什么管理依赖？"),
    ("the API service logs to Loki 并保留 30 天", "how long are API logs kept?"),
]


def seed(memories: int) -> None:
    """Inside the scratch environment: the owner, memories, and a token (printed as JSON)."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.tokens import token_create
    from foundation.actors import Actor
    from memories.services import memory_remember

    owner = get_user_model().objects.create_user(username="bench", password="bench password long")
    actor = Actor.owner(owner)
    for index in range(memories):
        statement, _ = TOPICS[index % len(TOPICS)]
        in_project = index % 4 == 0
        memory_remember(
            actor=actor, content=f"Service {index} {statement}.", kind="fact",
            scope_type="project" if in_project else "global",
            scope_key="github:bench/shop" if in_project else None,
        )  # fmt: skip
    _, raw = token_create(
        actor=actor,
        name="bench",
        agent_name="claude-code",
        scopes=["memories:read"],
        expires_in_days=1,
    )
    print(json.dumps({"token": raw}))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def run_hooks(home: Path, cwd: Path, url: str, token: str, runs: int) -> tuple[list[float], int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTINUITY_")}
    env |= {"HOME": str(home), "CONTINUITY_URL": url, "CONTINUITY_TOKEN": token}
    timings, printed = [], 0
    for index in range(runs):
        _, prompt = TOPICS[index % len(TOPICS)]
        payload = json.dumps({"session_id": "bench", "cwd": str(cwd), "hook_event_name": "UserPromptSubmit",
                              "prompt": prompt}, ensure_ascii=False).encode()  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(
            [str(SCRIPT), "hook", "claude-prompt"], input=payload, capture_output=True, env=env
        )
        timings.append((time.perf_counter() - started) * 1000)
        printed += bool(done.stdout)
    return timings, printed


def report(name: str, timings: list[float]) -> None:
    print(f"{name:<34} p50 {statistics.median(timings):6.1f} ms   p95 {percentile(timings, 0.95):6.1f} ms   "
          f"max {max(timings):6.1f} ms   (n={len(timings)})")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=500)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument(
        "--embedder", default=None, help="CONTINUITY_EMBEDDER for the server (e.g. none)"
    )
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed is not None:
        seed(args.seed)
        return 0

    scratch = Path(tempfile.mkdtemp(prefix="continuity-hook-bench-"))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")
    }
    env |= {"DJANGO_SETTINGS_MODULE": "continuity.settings", "CONTINUITY_DATA_DIR": str(scratch / "data"),
            "CONTINUITY_CELERY_EAGER": "true", "PYTHONPATH": str(ROOT)}  # fmt: skip
    if args.embedder is not None:
        env["CONTINUITY_EMBEDDER"] = args.embedder
    server = None
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        seeded = subprocess.run([sys.executable, __file__, "--seed", str(args.memories)], cwd=ROOT, env=env,
                                check=True, capture_output=True, text=True)  # fmt: skip
        token = json.loads(seeded.stdout.strip().splitlines()[-1])["token"]
        port = free_port()
        log = open(scratch / "uvicorn.log", "w")
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--no-access-log"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"{url}/health", timeout=2)
                break
            time.sleep(0.2)
        # One warm-up call pays the server's one-time costs (imports, a model load).
        request = urllib.request.Request(
            f"{url}/api/v1/inject",
            data=json.dumps({"prompt": "warm up"}).encode(),
            method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=60).read()

        home = scratch / "home"
        checkout = scratch / "work" / "shop"
        (checkout / ".git").mkdir(parents=True)
        (checkout / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {PROJECT_REMOTE}\n')
        home.mkdir()

        print(f"lite profile, {args.memories} memories, semantic channel: "
              f"{'off' if args.embedder in ('none', '') else 'as configured'}; {os.cpu_count()} CPUs; "
              f"load average {os.getloadavg()[0]:.1f} at start")  # fmt: skip
        floor, _ = run_hooks(
            home, checkout, f"http://127.0.0.1:{free_port()}", token, max(10, args.runs // 5)
        )
        report("floor (server down, fail open)", floor)
        timings, printed = run_hooks(home, checkout, url, token, args.runs)
        report("prompt hook, from process start", timings)
        print(f"calls that printed a memory block: {printed}/{args.runs}")
        with sqlite3.connect(scratch / "data" / "continuity.sqlite3") as db:
            rows = db.execute(
                "SELECT latency_ms, reason FROM capture_injectionreceipt ORDER BY id"
            ).fetchall()[1:]
        server_side = [latency for latency, _ in rows]
        if server_side:
            report("server-side injection (receipts)", server_side)
            reasons = {}
            for _, reason in rows:
                reasons[reason or "injected"] = reasons.get(reason or "injected", 0) + 1
            print(
                "receipts by reason:",
                ", ".join(f"{name} {n}" for name, n in sorted(reasons.items())),
            )
        print(
            f"load average {os.getloadavg()[0]:.1f} at the end (a shared machine: figures vary with it)"
        )
        return 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
