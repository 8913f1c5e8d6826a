"""Real servers that a fault test may stop and start: a private PostgreSQL cluster, a
private Redis, and Continuity itself (uvicorn on the ASGI app, optionally a Celery worker).

Each lives in the test's temporary directory on free loopback ports, so stopping one
never disturbs the servers the rest of the suite uses. Readiness is polled, never slept.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(
    condition,
    what: str,
    timeout: float = READY_TIMEOUT,
    process: subprocess.Popen | None = None,
    log=None,
):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{what}: process exited ({process.returncode})\n{_tail(log)}")
        time.sleep(0.1)
    raise AssertionError(f"no {what} within {timeout} s\n{_tail(log)}")


def _tail(log: Path | None) -> str:
    return log.read_text(errors="replace")[-4000:] if log and log.exists() else ""


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


class PrivatePostgres:
    """A throwaway trust-auth cluster (as the postgres user when running as root, which
    PostgreSQL requires)."""

    def __init__(self):
        self.bin = postgres_bin()
        if self.bin is None:
            raise AssertionError("PostgreSQL server binaries are not installed")
        # Not under pytest's tmp_path: the postgres user could not traverse root's folders.
        self.folder = Path(tempfile.mkdtemp(prefix="continuity-faults-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.log = self.folder / "postgres.log"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        result = subprocess.run(
            [*prefix, *command], capture_output=True, text=True, cwd="/", timeout=120
        )
        if result.returncode:
            raise AssertionError(
                f"{command[0]} failed ({result.returncode}): {result.stdout}{result.stderr}"
            )

    def init(self) -> PrivatePostgres:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--locale=C.UTF-8")  # fmt: skip
        self.start()
        self._run(
            str(self.bin / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "continuity",
        )
        return self

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/continuity"

    def start(self) -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", "-l", str(self.log),
            "-o", f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )  # fmt: skip

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(AssertionError):
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class PrivateRedis:
    def __init__(self, folder: Path):
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for(self._answers, "redis", process=self.process)

    def _answers(self) -> bool:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock,
        ):
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
        return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


class Continuity:
    """The web app under uvicorn, and on request a Celery worker, on the given servers."""

    def __init__(self, folder: Path, env: dict[str, str]):
        self.folder = folder
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "continuity.settings",
            "CONTINUITY_DATA_DIR": str(folder / "data"),
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        self.port = free_port()
        self.processes: list[tuple[subprocess.Popen, Path]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def manage(self, *args: str, timeout: float = 300) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    def _spawn(self, name: str, command: list[str]) -> tuple[subprocess.Popen, Path]:
        log = self.folder / f"{name}.log"
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append((process, log))
        return process, log

    def start_web(self) -> None:
        process, log = self._spawn(
            "web",
            [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host", "127.0.0.1",
             "--port", str(self.port), "--log-level", "warning", "--lifespan", "on"],
        )  # fmt: skip
        wait_for(self._web_answers, "web server", process=process, log=log)

    def _web_answers(self) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=5).status_code in (200, 503)
        except httpx.TransportError:
            return False

    def start_worker(self, *queues: str, beat: bool = False) -> tuple[subprocess.Popen, Path]:
        """A solo worker (a new name each time); with `beat`, the periodic jobs too."""
        number = len(self.processes)
        command = [sys.executable, "-m", "celery", "-A", "continuity", "worker", "--pool", "solo",
                   "--loglevel", "info", "--without-gossip", "--without-mingle",
                   "-n", f"faults-{self.port}-{number}@%h"]  # fmt: skip
        if queues:
            command += ["-Q", ",".join(queues)]
        if beat:
            command += ["-B", "-s", str(self.folder / f"beat-schedule-{number}")]
        process, log = self._spawn(f"worker-{number}", command)
        wait_for(lambda: b"ready." in log.read_bytes(), "celery worker", process=process, log=log)
        return process, log

    def stop(self) -> None:
        for process, _ in self.processes:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process, _ in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


OWNER_PASSWORD = "a long and unguessable password"


@contextlib.contextmanager
def team_stack(folder: Path, scopes: str, env: dict[str, str] | None = None):
    """Private PostgreSQL and Redis, Continuity's web server on them, migrated, with the
    owner `ada` (OWNER_PASSWORD) and a token of hers for claude-code with `scopes`.
    Yields (app, postgres, redis, token); everything is stopped and removed afterwards."""
    postgres = PrivatePostgres().init()
    redis = PrivateRedis(folder / "redis")
    redis.start()
    app = Continuity(
        folder / "app", {"DATABASE_URL": postgres.url, "REDIS_URL": redis.url, **(env or {})}
    )
    try:
        app.manage("migrate", "--no-input")
        app.env["DJANGO_SUPERUSER_PASSWORD"] = OWNER_PASSWORD
        app.manage(
            "createsuperuser", "--no-input", "--username", "ada", "--email", "ada@example.com"
        )
        output = app.manage("create_token", "--user", "ada", "--agent", "claude-code",
                            "--scopes", scopes, "--expires-in", "7")  # fmt: skip
        app.start_web()
        yield app, postgres, redis, re.search(r"cont_pat_[A-Za-z0-9_-]+", output).group(0)
    finally:
        app.stop()
        redis.stop()
        postgres.destroy()
