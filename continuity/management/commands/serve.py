"""`manage.py serve`: run Continuity on this machine with one command.

serve is a small supervisor. It brings the database up to date, makes sure an owner
account exists (printing its password once, on the start that created it), then runs:

- web: uvicorn serving `continuity.asgi:application`;
- worker: one Celery worker with beat embedded, unless --no-worker (for instance when
  a team deployment runs its workers elsewhere).

Each child runs in its own process group. A Ctrl-C in the terminal therefore reaches only
serve, which stops the children in an orderly way (SIGTERM, up to GRACE_SECONDS, then
SIGKILL), and the whole group, grandchildren such as beat included, can be swept at the
end. If a child dies on its own, serve stops the others and exits non-zero: half an
instance (a web server whose captures never get processed) is worse than none.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError, connections, transaction

GRACE_SECONDS = 10  # time the children get to finish in-flight work before SIGKILL
POLL_SECONDS = 0.2  # how often serve looks at its children; also the stop latency
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


class Command(BaseCommand):
    help = (
        "Run Continuity: apply migrations, create the owner account on first start, then "
        "run the web server and a background worker until Ctrl-C."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
        parser.add_argument("--port", type=int, default=8000, help="port to listen on")
        parser.add_argument(
            "--no-worker", action="store_true", help="run the web server only, no Celery worker"
        )

    def handle(self, *args, host: str, port: int, no_worker: bool, verbosity: int, **options):
        call_command("migrate", interactive=False, verbosity=max(verbosity - 1, 0))
        wanted = os.environ.get("CONTINUITY_OWNER_USERNAME", "").strip() or "owner"
        username, password = ensure_owner(wanted)
        self.announce(host, port, username, password)
        # serve only supervises from here on; don't hold a database connection for days.
        connections.close_all()

        stop_requests: list[int] = []
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            # Under nohup SIGHUP is ignored on purpose; keep it that way. SIGINT and SIGTERM
            # always stop serve, even where a shell started it with SIGINT ignored.
            if signum != signal.SIGHUP or signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, lambda signum, frame: stop_requests.append(signum))

        children: dict[str, subprocess.Popen] = {}
        try:
            children["web"] = spawn(web_command(host, port))
            if not no_worker:
                children["worker"] = spawn(worker_command())
            pids = ", ".join(f"{name} {child.pid}" for name, child in children.items())
            self.stdout.write(f"Started {pids}. Press Ctrl-C to stop.")
            self.stdout.flush()
            failed = wait_for_first_exit(children, stop_requests)
        finally:
            # Whatever happened above (even an exception while spawning), no child survives.
            stop_all(children, stop_requests)
        if failed:
            name, code = failed
            raise CommandError(
                f"The {name} process stopped unexpectedly ({describe(code)}); "
                "stopped the others too."
            )
        self.stdout.write("Continuity stopped.")

    def announce(self, host: str, port: int, username: str, password: str | None) -> None:
        base = f"http://{browsable(host)}:{port}/"
        self.stdout.write("\n".join(banner(base, username, password)))
        self.stdout.flush()  # the children share our stdout; keep these lines ahead of theirs


def banner(base: str, username: str, password: str | None) -> list[str]:
    """What serve prints before starting its children. Every command in it starts with
    "$ " and works as printed from a fresh checkout (run.py makes the environment, and the
    client script is named by its absolute path); the sign-in details come last, since
    they are what a first start is for."""
    client = Path(sys.executable).parent / "continuity"
    lines = [
        f"Continuity ({settings.CONTINUITY_PROFILE} profile) is starting.",
        f"  dashboard: {base}",
        f"  admin:     {base}admin/",
        f"  data:      {settings.CONTINUITY_DATA_DIR}",
        "Connect an agent: create a token in the dashboard's Tokens tab, or with",
        f"  $ python3 run.py manage create_token --user {username} --agent claude-code "
        "--scopes memories:read,capture:write --expires-in 90",
        "then install its hooks (Claude Code here; `codex` for Codex):",
        f"  $ {client} setup claude --url {base.rstrip('/')} --token <the token>",
        "Change the owner's password any time with:",
        f"  $ python3 run.py manage changepassword {username}",
        "",
    ]
    if password:
        return [
            *lines,
            f"Created the owner account. Sign in at {base} with",
            f"  username: {username}",
            f"  password: {password}",
            "(this password is shown only this once)",
            "",
        ]
    return [*lines, f"Sign in at {base} as {username!r}.", ""]


def ensure_owner(username: str) -> tuple[str, str | None]:
    """Create the owner on first start. Returns (username, password if just created else None).

    "First start" means no superuser exists yet, so an owner made with createsuperuser, or a
    later change of CONTINUITY_OWNER_USERNAME, never leads to a second owner account.
    """
    User = get_user_model()
    existing = User.objects.filter(is_superuser=True).order_by("pk").first()
    if existing is not None:
        return existing.get_username(), None
    password = secrets.token_urlsafe(18)  # 144 random bits
    try:
        with transaction.atomic():
            User.objects.create_superuser(
                **{User.USERNAME_FIELD: username}, email="", password=password
            )
    except IntegrityError:
        # A second serve won the race, or a non-owner user already has that name.
        return username, None
    return username, password


def browsable(host: str) -> str:
    """The host part of a URL a browser on this machine can open."""
    if host in {"0.0.0.0", ""}:
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def web_command(host: str, port: int) -> list[str]:
    return [
        sys.executable, "-m", "uvicorn", "continuity.asgi:application",
        "--host", host, "--port", str(port),
        # The ASGI dispatcher uses lifespan to start mounted apps (the MCP session manager).
        "--lifespan", "on",
        "--no-server-header",
        # Long-lived requests must not outlast our own grace period and get SIGKILLed.
        "--timeout-graceful-shutdown", str(GRACE_SECONDS - 2),
    ]  # fmt: skip


def worker_command() -> list[str]:
    command = [
        sys.executable, "-m", "celery", "-A", "continuity", "worker", "--beat",
        # One task at a time: SQLite has a single writer, and the web process writes too.
        # Bigger deployments run dedicated workers with their own concurrency.
        "--pool", "solo",
        "--hostname", "continuity@%h",
        # Every declared queue: the default, capture ingestion, embeddings.
        "--queues", ",".join(queue.name for queue in settings.CELERY_TASK_QUEUES),
        "--loglevel", os.environ.get("CONTINUITY_LOG_LEVEL", "INFO"),
    ]  # fmt: skip
    if settings.CONTINUITY_PROFILE == "lite":
        # A lone worker has no peers to sync with; on the polling filesystem broker these
        # broadcasts would only slow the start.
        command += ["--without-mingle", "--without-gossip"]
    return command


def spawn(command: list[str]) -> subprocess.Popen:
    env = dict(
        os.environ,
        # Pin what serve resolved, so a relative path or a different working directory
        # cannot point a child at other data, and the project stays importable from anywhere.
        CONTINUITY_DATA_DIR=str(settings.CONTINUITY_DATA_DIR),
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(settings.BASE_DIR), os.environ.get("PYTHONPATH")])
        ),
    )
    return subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        process_group=0,
        preexec_fn=die_with_parent(os.getpid()),
    )


def die_with_parent(parent_pid: int):
    """Ask Linux to SIGTERM the child if serve itself dies, even by SIGKILL or a crash:
    signal handlers cannot cover that, and the children would be orphaned."""

    def preexec() -> None:
        if _libc is not None:
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent_pid:  # serve died before the request took effect
            os._exit(1)

    return preexec


def wait_for_first_exit(
    children: dict[str, subprocess.Popen], stop_requests: list[int]
) -> tuple[str, int] | None:
    """Block until a stop is requested (None) or a child exits on its own (its name, code)."""
    while not stop_requests:
        for name, child in children.items():
            if child.poll() is not None:
                return name, child.returncode
        time.sleep(POLL_SECONDS)
    return None


def stop_all(children: dict[str, subprocess.Popen], stop_requests: list[int]) -> None:
    """SIGTERM every child, give them GRACE_SECONDS together, then SIGKILL what is left of
    each process group. Another Ctrl-C during the wait skips straight to SIGKILL."""
    asked = len(stop_requests)
    for child in children.values():
        if child.poll() is None:
            child.terminate()  # the leader stops its own children (uvicorn, beat) in order
    deadline = time.monotonic() + GRACE_SECONDS
    while (
        any(child.poll() is None for child in children.values())
        and time.monotonic() < deadline
        and len(stop_requests) == asked
    ):
        time.sleep(POLL_SECONDS)
    for child in children.values():
        try:
            os.killpg(child.pid, signal.SIGKILL)  # the leader's pid is the group id
        except (ProcessLookupError, PermissionError):
            pass  # the group is already empty: the usual case
        child.wait()


def describe(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit code {returncode}"
