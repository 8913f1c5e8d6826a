"""No query string — a recall query, a search, a pasted secret — reaches the request logs."""

from __future__ import annotations

import logging

import pytest

from foundation.logs import DropQueryStrings, without_query


def test_a_query_string_is_dropped_from_a_path_and_from_a_request_line():
    assert without_query("/api/v1/recall?query=sk-live-123") == "/api/v1/recall?…"
    assert (
        without_query('"GET /search/?q=a%20b HTTP/1.1" 200 12')
        == '"GET /search/?… HTTP/1.1" 200 12'
    )
    assert without_query("/health") == "/health"


@pytest.mark.parametrize("name", ["uvicorn.access", "django.server"])
def test_the_request_loggers_carry_the_filter(name):
    assert any(isinstance(f, DropQueryStrings) for f in logging.getLogger(name).filters)


def test_uvicorns_access_line_keeps_everything_but_the_query(caplog):
    logger = logging.getLogger("uvicorn.access")
    secret = "ghp_" + "a1B2" * 9
    with caplog.at_level(logging.INFO, logger="uvicorn.access"):
        logger.info(
            '%s - "%s %s HTTP/%s" %d',
            "127.0.0.1:5000",
            "GET",
            f"/api/v1/recall?query={secret}",
            "1.1",
            200,
        )
    line = caplog.records[-1].getMessage()
    assert secret not in line
    assert line == '127.0.0.1:5000 - "GET /api/v1/recall?… HTTP/1.1" 200'


@pytest.mark.slow
def test_a_real_web_server_logs_the_request_without_its_query(tmp_path):
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    root = Path(__file__).resolve().parent.parent
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ, "CONTINUITY_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "continuity.settings",
    }  # fmt: skip
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    log = tmp_path / "uvicorn.log"
    with open(log, "w") as handle:
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "continuity.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--lifespan", "on"],
            cwd=root, env=env, stdout=handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
    secret = "sk-proj-" + "Zx9" * 12
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                response = httpx.get(
                    f"http://127.0.0.1:{port}/api/v1/recall?query={secret}", timeout=5
                )
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        assert response.status_code == 401
        while "/api/v1/recall" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log.read_text()
    assert "/api/v1/recall?…" in text
    assert secret not in text
