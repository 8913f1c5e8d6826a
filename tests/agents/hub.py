"""A running Continuity for the real clients: the web app under uvicorn and a Celery
worker on one instance (the team profile when PostgreSQL and Redis are configured, the
lite one otherwise), an owner signed in over HTTP, and tokens made the way the dashboard
makes them."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.mcp.live import free_port
from tests.workers.instance import ROOT, WORK_TIMEOUT, Instance, team_urls, wait_until

HOOK_SCOPES = ["memories:read", "capture:write"]
MCP_SCOPES = ["memories:read", "memories:write", "handoff"]


class Hub:
    def __init__(self, folder: Path):
        self.instance = Instance(folder, "team" if team_urls() else "lite")
        self.folder = folder
        self.process = None
        self.owner: httpx.Client | None = None

    def start(self) -> None:
        self.instance.harness("migrate")
        credentials = json.loads(subprocess.run(
            [sys.executable, "-m", "tests.client.e2e_harness", "owner"], cwd=ROOT,
            env=self.instance.env, check=True, capture_output=True, text=True, timeout=120,
        ).stdout)  # fmt: skip
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.log = self.folder / "uvicorn.log"
        # The inject budget is roomy: this machine is shared and the budget has its own tests.
        env = {**self.instance.env, "CONTINUITY_INJECT_BUDGET_MS": "30000"}
        with open(self.log, "w") as handle:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host",
                 "127.0.0.1", "--port", str(port), "--lifespan", "on", "--no-access-log"],
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=handle,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        wait_until(self._answering, "the server answering", 60, self.instance)
        self.owner = self._sign_in(credentials)
        self.instance.start_worker("agents-worker")
        # A fresh server's first inject pays one-time costs (a model load) that a hook's
        # own time limit is not meant to cover.
        httpx.post(f"{self.url}/api/v1/inject", json={"prompt": "warm up"},
                   headers={"Authorization": f"Bearer {credentials['token']}"}, timeout=120)  # fmt: skip

    @property
    def mcp_url(self) -> str:
        return f"{self.url}/mcp"

    def _answering(self) -> bool:
        assert self.process.poll() is None, self.log.read_text()
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"{self.url}/health", timeout=5).status_code in (200, 503)
        return False

    def _sign_in(self, credentials: dict) -> httpx.Client:
        client = httpx.Client(base_url=self.url, timeout=60)
        client.get("/signin/")
        signed_in = client.post("/signin/", data={
            "username": credentials["username"], "password": credentials["password"],
            "csrfmiddlewaretoken": client.cookies["csrftoken"],
        })  # fmt: skip
        assert signed_in.status_code == 302, signed_in.text[:500]
        client.headers["X-CSRFToken"] = client.cookies["csrftoken"]
        return client

    def token(self, agent: str, scopes: list[str], name: str | None = None) -> str:
        """A new token for `agent`, made through the owner API; the raw secret."""
        made = self.owner.post("/api/owner/tokens/", json={
            "name": name or f"{agent} {'+'.join(scopes)}", "agent_name": agent,
            "scopes": scopes, "expires_in_days": 1,
        })  # fmt: skip
        assert made.status_code == 201, made.text
        body = made.json()
        return body.get("token") or body["secret"]

    def memories(self, **params) -> list[dict]:
        listed = self.owner.get("/api/owner/memories/", params=params)
        assert listed.status_code == 200, listed.text
        return listed.json()["results"]

    def pending_candidates(self, containing: str, timeout: float = WORK_TIMEOUT) -> list[dict]:
        """Pending capture candidates whose text holds `containing`, once the worker has
        turned the stored batches into them."""

        def found():
            listed = self.owner.get("/api/owner/candidates/", params={"status": "pending"})
            assert listed.status_code == 200, listed.text
            return [c for c in listed.json()["results"] if containing in c["content"]]

        return wait_until(found, f"a candidate holding {containing!r}", timeout, self.instance)

    def approve(self, candidate: dict, visibility: str = "shared") -> dict:
        approved = self.owner.post(
            f"/api/owner/candidates/{candidate['id']}/approve/", json={"visibility": visibility}
        )
        assert approved.status_code == 200, approved.text
        return approved.json()

    def logs(self) -> str:
        return (
            f"--- uvicorn\n{self.log.read_text(errors='replace')[-4000:]}\n{self.instance.logs()}"
        )

    def stop(self) -> None:
        if self.owner:
            self.owner.close()
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.instance.stop()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    made = Hub(tmp_path_factory.mktemp("hub"))
    try:
        made.start()
        yield made
    finally:
        made.stop()


def wait_for(condition, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.25)
    pytest.fail(f"no {what} within {timeout} s")
