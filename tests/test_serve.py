"""`manage.py serve` as a real process tree: start, sign in, worker round trip, clean stops.

Each test starts serve on a free port with a fresh data directory. In the team profile
(DATABASE_URL and REDIS_URL set) serve gets a database of its own on the same PostgreSQL
server, created and dropped here, and another Redis database number, so its worker never
picks up tasks that the rest of the suite enqueues.

Readiness is always polled (bounded), never slept for. Processes are found through /proc:
a descendant is remembered by pid, process group and start time, so a recycled pid is
never mistaken for a survivor.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import redis

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
READY_TIMEOUT = 120  # generous bound: the worker alone takes 6–9 s to start on 2 cores
STOP_TIMEOUT = 40  # serve gives its children 10 s, then kills them


# --- processes, read from /proc ------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    state: str
    start: int  # clock ticks after boot: tells a recycled pid apart
    cmdline: str


def read_proc(pid: int) -> Proc | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the command name may contain spaces
    return Proc(pid, int(fields[1]), int(fields[2]), fields[0], int(fields[19]), cmdline)


def all_procs() -> list[Proc]:
    procs = (read_proc(int(name)) for name in os.listdir("/proc") if name.isdigit())
    return [proc for proc in procs if proc is not None]


def descendants(pid: int) -> list[Proc]:
    procs = all_procs()
    found, frontier = [], {pid}
    while frontier:
        children = [proc for proc in procs if proc.ppid in frontier]
        found += children
        frontier = {proc.pid for proc in children}
    return found


def still_running(procs: list[Proc]) -> list[Proc]:
    """Those of `procs` that still run, plus anything else now living in their groups."""
    # Never our own group: that would include pytest itself.
    groups = {proc.pgid for proc in procs} - {os.getpgrp()}
    survivors = []
    for proc in all_procs():
        if proc.state == "Z":  # dead, only waiting to be reaped
            continue
        same = any(proc.pid == old.pid and proc.start == old.start for old in procs)
        if same or proc.pgid in groups:
            survivors.append(proc)
    return survivors


# --- starting serve --------------------------------------------------------------------------


@dataclass
class Serve:
    process: subprocess.Popen
    port: int
    log: Path
    seen: list[Proc] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def children(self) -> list[Proc]:
        """Current descendants, also remembered so teardown can sweep them."""
        found = descendants(self.process.pid)
        known = {(proc.pid, proc.start) for proc in self.seen}
        self.seen += [proc for proc in found if (proc.pid, proc.start) not in known]
        return found

    def wait_until(self, condition, what: str, timeout=READY_TIMEOUT, while_running=True):
        """Poll `condition` until it returns something true; fail after `timeout` seconds,
        or as soon as serve exits when it is meant to be running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = condition()
            if result:
                return result
            if while_running and self.process.poll() is not None:
                code = self.process.returncode
                pytest.fail(f"serve exited ({code}) before {what}:\n{self.output()}")
            time.sleep(0.2)
        pytest.fail(f"no {what} within {timeout} s:\n{self.output()}")

    def health(self) -> dict | None:
        try:
            response = httpx.get(f"{self.url}/health", timeout=5)
        except httpx.TransportError:
            return None
        return response.json() if response.status_code == 200 else None

    def wait_ready(self) -> dict:
        return self.wait_until(self.health, "healthy /health")

    def stop(self, signum=signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=STOP_TIMEOUT)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def other_redis_database(url: str) -> str:
    """The same Redis server, another database number than the rest of the suite uses."""
    current = urlsplit(url).path.strip("/") or "0"
    return with_database(url, "14" if current == "15" else "15")


@pytest.fixture
def serve_database():
    """Team profile: a dedicated PostgreSQL database for serve, dropped afterwards."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        yield None
        return
    import psycopg

    name = f"continuity_serve_{secrets.token_hex(4)}"
    with psycopg.connect(url, dbname="postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(url, name)
    finally:
        with psycopg.connect(url, dbname="postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def serve_env(tmp_path, serve_database) -> dict[str, str]:
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="continuity.settings",
        CONTINUITY_DATA_DIR=str(tmp_path / "data"),
        CONTINUITY_HEARTBEAT_SECONDS="1",
        PYTHONUNBUFFERED="1",
    )
    if serve_database:
        env["DATABASE_URL"] = serve_database
    elif env.get("DATABASE_URL", "").startswith("sqlite"):
        del env["DATABASE_URL"]  # never migrate someone's SQLite file: use the data dir
    for name in ("REDIS_URL", "CELERY_BROKER_URL"):
        if env.get(name):
            env[name] = other_redis_database(env[name])
            # That Redis database is serve's alone: start it empty, so a worker heartbeat
            # left by an earlier serve does not read as a stopped worker.
            redis.Redis.from_url(env[name]).flushdb()
    return env


@pytest.fixture
def launch(tmp_path, serve_env):
    """Start serve; at teardown stop whatever is left, so no test leaves a process behind."""
    started: list[Serve] = []

    def start(*args: str, port: int | None = None, **env: str) -> Serve:
        port = port or free_port()
        log = tmp_path / f"serve-{len(started)}.log"
        with open(log, "w") as handle:
            process = subprocess.Popen(
                [sys.executable, "manage.py", "serve", "--port", str(port), *args],
                cwd=ROOT,
                env={**serve_env, **env},
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=subprocess.STDOUT,
            )
        started.append(Serve(process, port, log))
        return started[-1]

    yield start
    for serve in started:
        if serve.process.poll() is None:
            serve.children()
            serve.process.terminate()
            try:
                serve.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                serve.process.kill()
                serve.process.wait()
        for proc in still_running(serve.seen):
            with contextlib.suppress(ProcessLookupError):  # gone meanwhile
                os.kill(proc.pid, signal.SIGKILL)


def printed_password(output: str) -> str | None:
    match = re.search(r"^\s*password: (\S+)$", output, re.MULTILINE)
    return match.group(1) if match else None


def sign_in(serve: Serve, username: str, password: str) -> httpx.Response:
    with httpx.Client(base_url=serve.url, timeout=10) as client:
        page = client.get("/admin/login/")
        assert page.status_code == 200
        return client.post(
            "/admin/login/?next=/admin/",
            data={
                "username": username,
                "password": password,
                "csrfmiddlewaretoken": client.cookies["csrftoken"],
                "next": "/admin/",
            },
        )


def with_celery(serve: Serve, count: int) -> list[Proc] | None:
    """serve's descendants once at least `count` of them are Celery processes."""
    children = serve.children()
    return children if sum("celery" in proc.cmdline for proc in children) >= count else None


# --- the tests -----------------------------------------------------------------------------


def test_serve_runs_web_and_worker_prints_sign_in_and_stops_every_child_on_sigterm(launch):
    started_at = datetime.now(UTC)
    serve = launch(CONTINUITY_OWNER_USERNAME="ada")

    health = serve.wait_ready()
    assert health["status"] == "ok"
    assert health["profile"] == ("team" if os.environ.get("DATABASE_URL") else "lite")

    output = serve.output()
    assert f"dashboard: http://127.0.0.1:{serve.port}/" in output
    assert f"admin:     http://127.0.0.1:{serve.port}/admin/" in output
    assert "username: ada" in output
    assert "$ python3 run.py manage changepassword ada" in output
    assert "python manage.py" not in output
    password = printed_password(output)
    assert password and len(password) >= 20
    # The banner ends with the sign-in details: nothing of it comes after the password.
    banner = output.split("\nStarted ")[0]
    assert banner.rstrip().splitlines()[-2:] == [
        f"  password: {password}",
        "(this password is shown only this once)",
    ]

    signed_in = sign_in(serve, "ada", password)
    assert signed_in.status_code == 302
    assert signed_in.headers["location"] == "/admin/"

    # Beat sends the heartbeat through the broker, the worker runs it, /health shows it.
    def fresh_heartbeat():
        beat = (serve.health() or {}).get("worker", {}).get("last_heartbeat")
        return beat and datetime.fromisoformat(beat) >= started_at

    serve.wait_until(fresh_heartbeat, "heartbeat from the worker")
    children = serve.children()
    assert any("uvicorn" in proc.cmdline for proc in children)
    assert any("celery" in proc.cmdline and "worker" in proc.cmdline for proc in children)
    assert all(proc.pgid != os.getpgid(serve.process.pid) for proc in children)

    assert serve.stop(signal.SIGTERM) == 0
    assert still_running(children) == []
    assert "Continuity stopped." in serve.output()


def test_second_start_on_the_same_data_prints_no_password(launch):
    first = launch("--no-worker")
    first.wait_ready()
    password = printed_password(first.output())
    assert password
    assert first.stop(signal.SIGINT) == 0  # Ctrl-C

    second = launch("--no-worker")
    second.wait_ready()

    output = second.output()
    assert printed_password(output) is None
    assert password not in output
    assert f"dashboard: http://127.0.0.1:{second.port}/" in output
    assert f"Sign in at http://127.0.0.1:{second.port}/ as 'owner'." in output
    assert second.stop() == 0


def test_every_command_the_banner_prints_works_as_printed(launch, serve_env, tmp_path):
    serve = launch("--no-worker", CONTINUITY_OWNER_USERNAME="ada")
    serve.wait_ready()
    commands = [
        line.strip()[2:] for line in serve.output().splitlines() if line.strip().startswith("$ ")
    ]
    assert len(commands) == 3, serve.output()
    create_token, setup, change_password = commands
    home = tmp_path / "agent-home"
    home.mkdir()

    def run(command: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            command, shell=True, cwd=ROOT, env={**serve_env, **env}, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip

    token = run(create_token)
    assert token.returncode == 0 and token.stdout.startswith("cont_pat_"), token.stderr
    installed = run(setup.replace("<the token>", token.stdout.strip()), HOME=str(home))
    assert installed.returncode == 0, installed.stderr
    assert "Hooks in " in installed.stdout and (home / ".claude" / "settings.json").exists()
    # changepassword asks for the new password on a terminal; that it starts is what counts.
    assert run(f"{change_password} --help").returncode == 0
    assert serve.stop() == 0


def test_no_worker_starts_the_web_server_and_no_celery_process(launch):
    serve = launch("--no-worker")
    serve.wait_ready()

    children = serve.children()
    assert any("uvicorn" in proc.cmdline for proc in children)
    assert not any("celery" in proc.cmdline for proc in children)
    assert serve.stop() == 0
    assert still_running(children) == []


def test_serve_stops_the_rest_and_fails_when_a_child_dies(launch):
    serve = launch()
    serve.wait_ready()
    children = serve.wait_until(lambda: with_celery(serve, 1), "worker process")
    web = next(proc for proc in children if "uvicorn" in proc.cmdline)

    os.kill(web.pid, signal.SIGKILL)

    assert serve.process.wait(timeout=STOP_TIMEOUT) != 0
    assert "The web process stopped unexpectedly (killed by SIGKILL)" in serve.output()
    assert still_running(children) == []


def test_children_stop_by_themselves_when_serve_is_killed_outright(launch):
    serve = launch()
    serve.wait_ready()
    # Wait for the worker's embedded beat too: the grandchild must not be orphaned either.
    children = serve.wait_until(lambda: with_celery(serve, 2), "worker and beat processes")

    serve.process.kill()  # SIGKILL: serve gets no chance to clean up
    serve.process.wait()

    serve.wait_until(
        lambda: still_running(children) == [], "exit of every child", STOP_TIMEOUT, False
    )


def test_serve_fails_cleanly_when_the_port_is_taken(launch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        serve = launch("--no-worker", port=taken.getsockname()[1])

        assert serve.process.wait(timeout=READY_TIMEOUT) != 0

    assert "The web process stopped unexpectedly" in serve.output()
