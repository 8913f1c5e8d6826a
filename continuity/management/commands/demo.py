"""`manage.py demo`: two agents share one memory store, told as a short story.

Agent A (its own token) remembers a fact and hands a task over; agent B (another token)
recalls the fact and resumes the task. Both talk HTTP to the real agent API, served by
uvicorn on a free loopback port for the length of the demo.

The store must be a throw-away one: the command refuses to run unless the data directory
is a `continuity-demo-*` directory under the system's temporary folder and the database is
the SQLite file inside it. `run.py demo` (and `continuity demo`, which delegates to it)
creates such a directory, points the environment at it and removes it afterwards.
"""

from __future__ import annotations

import json
import secrets
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Scope
from accounts.tokens import token_create
from foundation.actors import Actor

DEMO_PREFIX = "continuity-demo-"
SCOPES = [Scope.MEMORIES_READ.value, Scope.MEMORIES_WRITE.value, Scope.HANDOFF.value]
TASK = "demo:release-notes"
FACT = "The release branch is cut every Thursday at 15:00 UTC."
START_SECONDS = 120  # a ceiling for a loaded machine; the loop ends when it is up


def throwaway_store() -> Path:
    """The data directory, if it is a demo's own; otherwise a CommandError naming why."""
    data_dir = Path(settings.CONTINUITY_DATA_DIR).resolve()
    temp = Path(tempfile.gettempdir()).resolve()
    database = settings.DATABASES["default"]
    inside = str(database.get("NAME", "")).startswith(str(data_dir))
    if (
        data_dir.parent != temp
        or not data_dir.name.startswith(DEMO_PREFIX)
        or database["ENGINE"] != "django.db.backends.sqlite3"
        or not inside
    ):
        raise CommandError(
            f"The demo runs only on a throw-away store ({temp}/{DEMO_PREFIX}*, SQLite), "
            f"not {data_dir}. Use `python3 run.py demo` or `continuity demo`."
        )
    return data_dir


class Agent:
    """One agent's side of the conversation: its bearer token against the agent API."""

    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            self.base + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            body = error.read()[:500].decode(errors="replace")
            raise CommandError(f"{method} {path} answered {error.code}: {body}") from None


class Command(BaseCommand):
    help = (
        "Two agents with different tokens share a throw-away store: A remembers and hands "
        "off, B recalls and resumes. Run it through `python3 run.py demo`."
    )

    def handle(self, *args, **options):
        store = throwaway_store()
        call_command("migrate", interactive=False, verbosity=0)
        owner = get_user_model().objects.create_user(
            "demo-owner", password=secrets.token_urlsafe(24)
        )
        _row, token_a = token_create(
            actor=Actor.owner(owner),
            name="Demo agent A",
            agent_name="agent-a",
            scopes=SCOPES,
            expires_in_days=1,
        )
        _row, token_b = token_create(
            actor=Actor.owner(owner),
            name="Demo agent B",
            agent_name="agent-b",
            scopes=SCOPES,
            expires_in_days=1,
        )
        server, thread, base = self.start_server()
        try:
            self.story(Agent(base, token_a), Agent(base, token_b), store)
        finally:
            # Let the server finish the last response before the interpreter shuts down.
            server.should_exit = True
            thread.join(timeout=START_SECONDS)

    def start_server(self):
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            "continuity.asgi:application", log_level="warning", lifespan="off", access_log=False
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise CommandError("The demo's web server did not start.")
            time.sleep(0.05)
        return server, thread, f"http://127.0.0.1:{port}"

    def say(self, line: str = "") -> None:
        self.stdout.write(line)

    def story(self, a: Agent, b: Agent, store: Path) -> None:
        self.say("Continuity demo: two agents, two tokens, one throw-away memory store.")
        self.say(f"Store: {store}")
        self.say()
        receipt = a.call("POST", "/api/v1/memories", {"content": FACT, "kind": "fact"})
        self.say(f"Agent A remembers: “{FACT}”")
        self.say(
            f"  (memory {receipt['id']}: {receipt['evolution']['action']}, {receipt['trust']})"
        )
        capsule = a.call(
            "POST", "/api/v1/handoffs",
            {
                "task_id": TASK, "summary": "Draft the release notes for Thursday's cut.",
                "next_steps": ["Collect merged changes since the last cut", "Write the notes"],
            },
        )  # fmt: skip
        self.say(f"Agent A hands off task {capsule['task_id']}: “{capsule['summary']}”")
        self.say()
        found = b.call("GET", "/api/v1/recall?query=When+is+the+release+branch+cut%3F")
        hits = [item["content"] for item in found["memories"]]
        self.say("Agent B asks: “When is the release branch cut?”")
        self.say(f"Agent B recalls: “{hits[0]}”" if hits else "Agent B recalls nothing.")
        resumed = b.call("POST", "/api/v1/handoffs/resume", {"task_id": TASK})["handoff"]
        if resumed:
            self.say(f"Agent B resumes task {resumed['task_id']}: “{resumed['summary']}”")
            for step in resumed.get("next_steps") or []:
                self.say(f"  next: {step}")
        else:
            self.say("Agent B finds no handoff to resume.")
        self.say()
        self.say("Two tokens, one store: what A left, B picked up. The demo store is removed now.")
