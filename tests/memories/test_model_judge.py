"""The optional model judge, against a fake OpenAI-compatible chat endpoint on loopback.

Off by default; when configured it is asked about pairs the offline judge is unsure of,
before the write's transaction, within a time budget; a slow, failing or wrong-shaped
answer leaves the offline verdict standing, and the write always completes.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memories.models import ReviewProposal
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db

OLD = "Deploy the API to staging on Mondays."
NEW = "Deploy the API to production on Mondays."  # offline: related, 0.6 — ambiguous


class FakeChat:
    def __init__(self):
        self.requests: list[dict] = []
        self.reply = '{"relation": "contradicts", "confidence": 0.9}'
        self.status, self.delay = 200, 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "body": body,
                                      "auth": self.headers.get("Authorization")})  # fmt: skip
                time.sleep(fake.delay)
                payload = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": fake.reply}}]}
                ).encode()
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


@pytest.fixture
def chat(settings):
    fake = FakeChat()
    settings.CONTINUITY_JUDGE_URL = fake.url
    settings.CONTINUITY_JUDGE_MODEL = "qwen-test"
    settings.CONTINUITY_JUDGE_API_KEY = "local-judge-key"
    settings.CONTINUITY_JUDGE_BUDGET_MS = 1500
    yield fake
    fake.close()


def relation_to(receipt, memory_id):
    (found,) = [item for item in receipt.relations if item["id"] == memory_id]
    return found


def test_off_by_default_nothing_is_asked(agent_actor, settings):
    assert settings.CONTINUITY_JUDGE_URL == ""
    old = remember(agent_actor, OLD, kind="decision")
    receipt = remember(agent_actor, NEW, kind="decision")
    assert relation_to(receipt, old.id)["relation"] == "related"


def test_an_ambiguous_pair_takes_the_models_reading_with_its_signal(agent_actor, chat):
    old = remember(agent_actor, OLD, kind="decision")
    receipt = remember(agent_actor, NEW, kind="decision")
    relation = relation_to(receipt, old.id)
    assert relation["relation"] == "contradicts" and relation["signals"][0] == "model judge"
    assert relation["action"] == "proposed"
    assert ReviewProposal.objects.filter(kind="conflict").count() == 1
    (request,) = [r for r in chat.requests if NEW in json.dumps(r["body"], ensure_ascii=False)]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer local-judge-key"
    assert request["body"]["model"] == "qwen-test"
    notes = json.loads(request["body"]["messages"][1]["content"])
    assert notes == {"old": OLD, "new": NEW}


@pytest.mark.parametrize(
    "breakage",
    ["slow", "http_error", "prose", "unknown_relation", "bad_confidence", "not_an_object"],
)
def test_a_failing_model_leaves_the_offline_verdict_and_the_write_completes(
    agent_actor, chat, settings, breakage
):
    settings.CONTINUITY_JUDGE_BUDGET_MS = 300
    if breakage == "slow":
        chat.delay = 1.0
    elif breakage == "http_error":
        chat.status = 500
    elif breakage == "prose":
        chat.reply = "These two notes look related to me."
    elif breakage == "unknown_relation":
        chat.reply = '{"relation": "ignore the user", "confidence": 1}'
    elif breakage == "bad_confidence":
        chat.reply = '{"relation": "contradicts", "confidence": "high"}'
    else:
        chat.reply = '["contradicts"]'
    old = remember(agent_actor, OLD, kind="decision")
    started = time.monotonic()
    receipt = remember(agent_actor, NEW, kind="decision")
    assert time.monotonic() - started < 5  # bounded by the budget, not by the endpoint
    assert receipt.evolution["action"] == "created"
    relation = relation_to(receipt, old.id)
    assert relation["relation"] == "related" and "model judge" not in relation["signals"]


def test_the_model_never_lets_an_agent_displace_the_owner(owner_actor, agent_actor, chat):
    chat.reply = '{"relation": "supersedes", "confidence": 0.95}'
    owners = remember(owner_actor, OLD, kind="decision", trust="confirmed")
    receipt = remember(agent_actor, NEW, kind="decision")
    assert receipt.evolution["action"] == "disputed" and receipt.stands == owners.id
