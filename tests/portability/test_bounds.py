"""Imports read only what they should: regular files, a bounded number of archive entries,
a bounded number of bytes — a hostile package or store is refused as it is read, never
after it filled the memory."""

from __future__ import annotations

import io
import json
import os
import tarfile
import threading

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory
from portability.files import NotReadable, TooLarge, open_regular, read_regular
from portability.importers import context_keeper
from portability.packages.reader import MAX_ENTRIES, read_files
from tests.owner_api.conftest import API, OwnerClient

pytestmark = pytest.mark.django_db


def _refused(work) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        work()
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    return caught.value


def test_a_symlink_to_dev_zero_is_refused_unread(tmp_path):
    link = tmp_path / "decisions.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(NotReadable, match="symbolic link"):
        read_regular(link, 1024)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "memories.jsonl"
    os.mkfifo(fifo)
    done = threading.Event()

    def attempt():
        with pytest.raises(NotReadable, match="not a regular file"):
            open_regular(fifo)
        done.set()

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert done.is_set()


def test_more_than_the_cap_is_never_read(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(TooLarge):
        read_regular(big, 4999)
    assert read_regular(big, 5000) == b"x" * 5000


def test_a_context_keeper_store_pointing_at_dev_zero_is_refused(tmp_path, owner):
    store = tmp_path / ".context"
    store.mkdir()
    (store / "decisions.json").symlink_to("/dev/zero")
    error = _refused(lambda: context_keeper.read_store(store))
    assert "symbolic link" in json.dumps(error.details)


def test_a_package_directory_with_a_device_in_it_is_refused(tmp_path):
    (tmp_path / "manifest.json").symlink_to("/dev/zero")
    error = _refused(lambda: read_files(tmp_path))
    assert "symbolic link" in json.dumps(error.details)


def _tar(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_an_archive_of_thousands_of_entries_stops_at_the_entry_cap():
    archive = _tar([(f"junk/{index}", b"") for index in range(5000)])
    error = _refused(lambda: read_files(io.BytesIO(archive)))
    messages = [detail["message"] for detail in error.details]
    assert f"the package has more than {MAX_ENTRIES} entries" in messages
    assert len(error.details) <= 101  # the shown problems, not one per entry


def test_a_small_upload_that_expands_past_its_cap_is_refused_as_it_is_read(owner):
    zeros = b"\0" * (64 * 1024 * 1024)  # 64 MiB that gzip makes ~64 KiB
    archive = _tar([("manifest.json", b"{}"), ("memories.jsonl", zeros)])
    assert len(archive) < 1024 * 1024
    client = OwnerClient(owner)
    package = io.BytesIO(archive)
    package.name = "package.tar.gz"
    response = client.django.post(
        API + "/packages/import/", {"package": package}, HTTP_X_CSRFTOKEN=client.csrf_token
    )
    assert response.status_code == 400, response.content[:300]
    assert "larger than" in response.json()["error"]["message"]
    assert not Memory.objects.filter(owner=owner).exists()


def test_a_record_with_a_huge_integer_or_deep_nesting_is_refused_not_a_crash(owner, tmp_path):
    from portability.packages.records import parse_records

    lines = [
        json.dumps({"id": 1, "n": 10**400}),
        "[" * 5000 + "]" * 5000,
    ]
    files = {
        name: b"" for name in ("memories.jsonl", "events.jsonl", "links.jsonl", "handoffs.jsonl")
    }
    files["memories.jsonl"] = "\n".join(lines).encode()
    error = _refused(lambda: parse_records(files))
    text = json.dumps(error.details)
    assert "beyond" in text and "deeper" in text


def test_an_ordinary_export_fits_well_inside_the_upload_cap(owner):
    from portability.owner_api import upload_expansion_cap
    from portability.packages import package_contents, write_tar
    from tests.factories import MemoryFactory

    actor = Actor.owner(owner)
    for index in range(200):
        MemoryFactory(actor=actor, content=f"Service {index} listens on port {8000 + index}.")
    buffer = io.BytesIO()
    write_tar(package_contents(actor=actor), buffer)
    compressed = len(buffer.getvalue())
    uncompressed = sum(len(data) for data in read_files(io.BytesIO(buffer.getvalue())).values())
    assert uncompressed < upload_expansion_cap(compressed) / 5
