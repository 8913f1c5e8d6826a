#!/usr/bin/env python3
"""Bootstrap and run Continuity with nothing but Python 3.12+ and git.

    python3 run.py serve [--host H --port P --no-worker]   run Continuity
    python3 run.py test [pytest args]                       run the test suite
    python3 run.py manage <command> [args]                  any manage.py command
    python3 run.py demo                                     two agents share a throw-away store

The first call creates `.venv/` beside this file, installs uv into it and syncs the
locked dependencies (`uv.lock`); later calls reuse it and only re-sync when the lock
file changed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".continuity-lock-sha256"
UV_VERSION = "0.13.9"
MIN_PYTHON = (3, 12)


def find_python() -> str:
    """This interpreter if it is new enough, else the first python3.1x on PATH that is."""
    if sys.version_info[:2] >= MIN_PYTHON:
        return sys.executable
    for name in ("python3.14", "python3.13", "python3.12"):
        path = shutil.which(name)
        if path and subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            return path
    sys.exit(
        f"Continuity needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; "
        f"this is {sys.version.split()[0]} and no python3.12+ was found on PATH."
    )


def lock_digest() -> str:
    data = (ROOT / "uv.lock").read_bytes() + (ROOT / "pyproject.toml").read_bytes()
    return hashlib.sha256(data).hexdigest()


def ensure_environment() -> None:
    digest = lock_digest()
    if PYTHON.exists() and STAMP.exists() and STAMP.read_text() == digest:
        return
    if not PYTHON.exists():
        print("Creating .venv ...", file=sys.stderr)
        python = find_python()
        if python == sys.executable:
            venv.EnvBuilder(with_pip=True).create(VENV)
        else:
            subprocess.run([python, "-m", "venv", str(VENV)], check=True)
    uv = BIN / "uv"
    if not uv.exists():
        subprocess.run(
            [str(PYTHON), "-m", "pip", "install", "--quiet", f"uv=={UV_VERSION}"], check=True
        )
    env = dict(os.environ, UV_PROJECT_ENVIRONMENT=str(VENV), UV_PYTHON_DOWNLOADS="never")
    # --inexact keeps uv itself (installed by pip above) in the environment.
    subprocess.run(
        [str(uv), "sync", "--frozen", "--inexact", "--python", str(PYTHON)],
        cwd=ROOT,
        env=env,
        check=True,
    )
    STAMP.write_text(digest)


# What could point the demo at a real store or real configuration: never passed on.
DEMO_DROPPED = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY")


def demo() -> int:
    """`manage.py demo` in a fresh temporary data directory (home and XDG folders inside it
    too, so nothing under the real home is read or written), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="continuity-demo-"))
    home = folder / "home"
    home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CONTINUITY_", "XDG_")) and key not in DEMO_DROPPED
    }
    env.update(
        CONTINUITY_DATA_DIR=str(folder), CONTINUITY_PROFILE="lite", HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"), DJANGO_SETTINGS_MODULE="continuity.settings",
    )  # fmt: skip
    try:
        return subprocess.run([str(PYTHON), "manage.py", "demo"], cwd=ROOT, env=env).returncode
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help", "help"}:
        print(__doc__)
        return 0
    command, rest = argv[0], argv[1:]
    ensure_environment()
    if command == "demo":
        return demo()
    if command == "serve":
        args = [str(PYTHON), "manage.py", "serve", *rest]
    elif command == "test":
        args = [str(PYTHON), "-m", "pytest", *rest]
    elif command == "manage":
        args = [str(PYTHON), "manage.py", *rest]
    else:
        print(f"unknown command {command!r}; try: serve, test, manage, demo", file=sys.stderr)
        return 2
    os.chdir(ROOT)
    # exec so that Ctrl-C and SIGTERM reach the real process directly.
    os.execv(args[0], args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
