"""The lite profile's embedded broker (continuity/broker.py): a worker polling the queue
folder while a message is published sees the whole message or nothing, and an unreadable
message is dropped instead of stopping the worker."""

from __future__ import annotations

import logging
import os
import threading
import time
from queue import Empty

import pytest
from kombu import Connection
from kombu.transport import virtual

from continuity import broker

pytestmark = pytest.mark.once  # the lite profile's own broker, whatever the run

TRANSPORT = "continuity.broker:Transport"


@pytest.fixture
def options(tmp_path, monkeypatch):
    # kombu keeps declared exchanges and bindings per process, for every connection of a
    # transport class; each test has its own folders, so it starts from a blank state.
    monkeypatch.setattr(broker.Transport, "global_state", virtual.BrokerState())
    folders = {"queue": tmp_path / "queue", "processed": tmp_path / "processed"}
    for folder in (*folders.values(), tmp_path / "control"):
        folder.mkdir()
    return {
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "control_folder": str(tmp_path / "control"),
        "store_processed": False,
        "polling_interval": 0.001,
    }


def connect(options):
    return Connection("filesystem://localhost//", transport=TRANSPORT, transport_options=options)


def test_the_lite_profile_publishes_and_consumes_through_this_transport(settings):
    from continuity.celery import app

    with app.connection_for_write() as connection:
        transport = connection.transport
    if settings.CONTINUITY_PROFILE != "lite":
        assert not isinstance(transport, broker.Transport)
        return
    assert isinstance(transport, broker.Transport)


def test_a_poll_while_a_message_is_being_written_finds_nothing(options):
    seen_mid_write = []
    with connect(options) as publisher, connect(options) as worker:
        worker_channel = worker.default_channel
        serialize = broker.dumps

        def serialize_then_poll(payload):
            # The worker polls at the worst moment: the message's file is open, not written.
            if isinstance(payload, dict):  # a message, not an exchange table
                try:
                    seen_mid_write.append(worker_channel._get("tasks"))
                except Empty:
                    seen_mid_write.append(None)
            return serialize(payload)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(broker, "dumps", serialize_then_poll)
            publisher.SimpleQueue("tasks").put({"n": 1})

        assert seen_mid_write == [None]
        message = worker.SimpleQueue("tasks").get(timeout=5)
        assert message.payload == {"n": 1}


def test_every_message_arrives_whole_while_a_worker_drains_the_queue(options):
    count, body = 120, "数据" * 200_000
    received, failures = [], []

    def drain():
        with connect(options) as worker:
            queue = worker.SimpleQueue("tasks")
            deadline = time.monotonic() + 60
            while len(received) < count and time.monotonic() < deadline:
                try:
                    message = queue.get(timeout=0.5)
                except queue.Empty:
                    continue
                except Exception as error:  # the worker must never see one
                    failures.append(repr(error))
                    continue
                received.append((message.payload["n"], message.payload["body"] == body))
                message.ack()

    worker = threading.Thread(target=drain)
    worker.start()
    with connect(options) as publisher:
        queue = publisher.SimpleQueue("tasks")
        for n in range(count):
            queue.put({"n": n, "body": body})
    worker.join()

    assert failures == []
    assert sorted(n for n, _ in received) == list(range(count))
    assert all(whole for _, whole in received)


def test_an_unreadable_message_is_dropped_and_the_next_one_delivered(options, caplog, tmp_path):
    with connect(options) as connection:
        queue = connection.SimpleQueue("tasks")
        (tmp_path / "queue" / "0_broken.tasks.msg").write_bytes(b"")
        queue.put({"n": 2})

        with caplog.at_level(logging.ERROR, logger="continuity.broker"):
            with pytest.raises(queue.Empty):
                queue.get(timeout=0.01, block=False)
        assert "Dropped an unreadable message from queue tasks" in caplog.text
        assert queue.get(timeout=5).payload == {"n": 2}
        assert list((tmp_path / "queue").iterdir()) == []


def test_queues_declared_while_another_process_publishes_lose_nothing(tmp_path, monkeypatch):
    # A web process and a worker declare the same queue at the same moment, as they do on
    # every start; the publisher's message must be routed to the queue, never fail on a
    # half-written exchange table or go nowhere.
    outcomes = []
    for round_ in range(60):
        monkeypatch.setattr(broker.Transport, "global_state", virtual.BrokerState())
        root = tmp_path / str(round_)
        folders = [root / name for name in ("queue", "processed", "control")]
        for folder in folders:
            folder.mkdir(parents=True)
        options = {
            "data_folder_in": str(folders[0]),
            "data_folder_out": str(folders[0]),
            "processed_folder": str(folders[1]),
            "control_folder": str(folders[2]),
            "store_processed": False,
        }
        start = threading.Barrier(3)

        def declare_and_publish(n, options=options, start=start):
            with connect(options) as connection:
                start.wait()
                try:
                    connection.SimpleQueue("tasks").put({"n": n})
                    outcomes.append("ok")
                except Exception as error:
                    outcomes.append(repr(error))

        publishers = [threading.Thread(target=declare_and_publish, args=(n,)) for n in (1, 2)]
        for thread in publishers:
            thread.start()
        with connect(options) as worker:
            start.wait()
            queue = worker.SimpleQueue("tasks")
            for thread in publishers:
                thread.join()
            got = sorted(queue.get(timeout=5).payload["n"] for _ in range(2))
        assert got == [1, 2]
        assert [name for name in os.listdir(folders[2]) if ".partial" in name] == []
    assert set(outcomes) == {"ok"}
