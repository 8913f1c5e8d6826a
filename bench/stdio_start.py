"""stdio MCP start-up: how long an agent waits for `manage.py mcp_stdio` to answer.

    .venv/bin/python bench/stdio_start.py [--runs 10] [--call] [--cold]

Prepares a scratch lite store (a temporary data dir, migrated, one owner and one agent token),
then starts the server `--runs` times exactly as a client does: a subprocess of the venv's
python running `manage.py mcp_stdio` with CONTINUITY_TOKEN in its environment, driven by the
official MCP client over stdio. Each run times, from just before the process is spawned, the
`initialize` result (the handshake a client waits for before it lists tools) and the first
`tools/list` result; with `--call`, also the first `memory_recall` (which loads what tools need).
Prints median/min/max in milliseconds per step.

Bytecode: Python's compiled-module cache decides much of a start. The server processes get a
private, fresh PYTHONPYCACHEPREFIX (so the venv is never written to): by default one unmeasured
run fills it and the measured runs read it, as every start after an agent's first does;
`--cold` forbids writing it (PYTHONDONTWRITEBYTECODE=1), so every run compiles every module,
as on a machine where the venv holds no bytecode and cannot be written.

Target: `initialize` answered in under 1 s (Codex's default start-up wait is 10 s, but other
clients and slow disks leave less; the first turn has no tools until it answers).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
TARGET_INITIALIZE_MS = 1000.0


def prepare(data_dir: Path) -> tuple[dict[str, str], str]:
    data_dir.mkdir(parents=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="continuity.settings",
        CONTINUITY_DATA_DIR=str(data_dir),
        DJANGO_SUPERUSER_PASSWORD="bench-password-not-secret",
        PYTHONUNBUFFERED="1",
    )

    def manage(*args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args, "--skip-checks"], cwd=ROOT, env=env,
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    manage("migrate", "--noinput", "-v", "0")
    manage("createsuperuser", "--noinput", "--username", "bench", "--email", "b@x.example")
    token = manage(
        "create_token", "--user", "bench", "--agent", "codex",
        "--scopes", "memories:read,memories:write", "--expires-in", "1",
    ).strip()  # fmt: skip
    del env["DJANGO_SUPERUSER_PASSWORD"]
    return env, token


async def one_run(params: StdioServerParameters, call: bool) -> dict[str, float]:
    times: dict[str, float] = {}
    started = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
        times["initialize"] = time.perf_counter() - started
        await client.list_tools()
        times["tools/list"] = time.perf_counter() - started
        if call:
            result = await client.call_tool("memory_recall", {"query": "test runner"})
            if result.is_error:
                raise RuntimeError(f"memory_recall failed: {result.content}")
            times["first memory_recall"] = time.perf_counter() - started
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--call", action="store_true", help="also time a first memory_recall")
    parser.add_argument("--cold", action="store_true", help="no bytecode cache: compile every run")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="continuity-stdio-bench-"))
    try:
        env, token = prepare(data_dir / "data")
        server_env = {
            **env,
            "CONTINUITY_TOKEN": token,
            "PYTHONPYCACHEPREFIX": str(data_dir / "pyc"),
        }
        if args.cold:
            server_env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            server_env.pop("PYTHONDONTWRITEBYTECODE", None)
        params = StdioServerParameters(
            command=sys.executable,
            args=[str(ROOT / "manage.py"), "mcp_stdio"],
            env=server_env,
            cwd=str(ROOT),
        )
        if not args.cold:
            anyio.run(one_run, params, args.call)  # fills the bytecode cache; not counted
        runs = [anyio.run(one_run, params, args.call) for _ in range(args.runs)]
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)

    cache = "no bytecode cache" if args.cold else "warm bytecode cache"
    print(f"stdio start-up over {args.runs} runs, {cache} (ms from spawn):")
    for step in runs[0]:
        values = [run[step] * 1000 for run in runs]
        print(
            f"  {step:<20} median {statistics.median(values):7.1f}  "
            f"min {min(values):7.1f}  max {max(values):7.1f}"
        )
    median_init = statistics.median(run["initialize"] * 1000 for run in runs)
    verdict = "meets" if median_init < TARGET_INITIALIZE_MS else "misses"
    print(f"initialize median {verdict} the {TARGET_INITIALIZE_MS:.0f} ms target")
    return 0 if median_init < TARGET_INITIALIZE_MS else 1


if __name__ == "__main__":
    sys.exit(main())
