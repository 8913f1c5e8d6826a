"""A real Continuity server for MCP tests: its own database, migrated and seeded, and uvicorn
serving `continuity.asgi:application` as a subprocess (live_server does not serve ASGI).

Lite: a fresh data directory holds the SQLite file. Team (DATABASE_URL and REDIS_URL set): a
dedicated PostgreSQL database on the same server, dropped afterwards, and another Redis
database number, so the server never shares state with the rest of the suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60
COMMAND_TIMEOUT = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{path}"))


class Site:
    """A database prepared for a server under test, and the environment that reaches it."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.database_name: str | None = None
        self.env = dict(
            os.environ,
            DJANGO_SETTINGS_MODULE="continuity.settings",
            CONTINUITY_DATA_DIR=str(data_dir),
            PYTHONUNBUFFERED="1",
        )
        url = os.environ.get("DATABASE_URL", "")
        if url.startswith("postgres"):
            import psycopg

            self.database_name = f"continuity_mcp_{secrets.token_hex(4)}"
            with psycopg.connect(url, dbname="postgres", autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{self.database_name}"')
            self.env["DATABASE_URL"] = with_path(url, self.database_name)
        elif url:
            del self.env["DATABASE_URL"]  # never touch someone's SQLite file: use the data dir
        for name in ("REDIS_URL", "CELERY_BROKER_URL"):
            if self.env.get(name):
                current = urlsplit(self.env[name]).path.strip("/") or "0"
                self.env[name] = with_path(self.env[name], "12" if current == "13" else "13")
        try:
            # Checks cover doors these tests do not use; migrations are what matters here.
            self.manage("migrate", "--noinput", "--skip-checks", "-v", "0")
            self.tokens: dict[str, dict] = self.seed("setup")
        except BaseException:
            self.drop()
            raise

    def run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=self.env, capture_output=True, text=True,
            timeout=COMMAND_TIMEOUT, **kwargs,
        )  # fmt: skip
        if result.returncode != 0:
            raise RuntimeError(f"{args} failed ({result.returncode}):\n{result.stderr}")
        return result

    def manage(self, *args: str) -> str:
        return self.run("manage.py", *args).stdout

    def seed(self, *args: str):
        return json.loads(self.run("-m", "tests.mcp.seed", *args).stdout)

    def raw(self, name: str) -> str:
        return self.tokens[name]["raw"]

    def drop(self) -> None:
        if self.database_name:
            import psycopg

            with psycopg.connect(
                os.environ["DATABASE_URL"], dbname="postgres", autocommit=True
            ) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self.database_name}" WITH (FORCE)')


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(site: Site, log: Path, **env: str) -> Server:
    """uvicorn on a free port; returns once /mcp answers (401 without a token)."""
    port = free_port()
    with open(log, "w") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--lifespan", "on", "--no-access-log"],
            cwd=ROOT, env={**site.env, **env}, stdin=subprocess.DEVNULL, stdout=handle,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    server = Server(process, port, log)
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited ({process.returncode}):\n{server.output()}")
        with contextlib.suppress(httpx.TransportError):  # not listening yet
            if httpx.post(server.url, json={}, timeout=2).status_code == 401:
                return server
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"uvicorn not ready within {READY_TIMEOUT} s:\n{server.output()}")
