"""Memory packages through the owner API: download an export, upload it as an import."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from memories.models import Memory
from tests.api.helpers import database_dump
from tests.handoff.packages import build_store
from tests.owner_api.conftest import API, OwnerClient

pytestmark = pytest.mark.django_db


def upload(client: OwnerClient, data: bytes, **fields):
    package = io.BytesIO(data)
    package.name = "package.tar.gz"
    return client.django.post(
        API + "/packages/import/",
        {"package": package, **fields},
        HTTP_X_CSRFTOKEN=client.csrf_token,
    )


def test_the_owner_downloads_a_package_and_another_owner_uploads_it(
    owner_actor, agent_actor, other_owner
):
    build_store(owner_actor, agent_actor)

    download = OwnerClient(owner_actor.user).get("/packages/export/")
    assert download.status_code == 200 and download["Content-Type"] == "application/gzip"
    assert download["Content-Disposition"].startswith('attachment; filename="continuity-ada-')
    with tarfile.open(fileobj=io.BytesIO(download.content), mode="r:gz") as tar:
        manifest = json.load(tar.extractfile("manifest.json"))

    dry = upload(OwnerClient(other_owner), download.content, dry_run="true")
    assert dry.status_code == 200 and not Memory.objects.filter(owner=other_owner).exists()
    created = upload(OwnerClient(other_owner), download.content)

    assert created.status_code == 201, created.content
    assert created.json()["created"]["memories"] == manifest["counts"]["memories"]
    again = upload(OwnerClient(other_owner), download.content)
    assert again.status_code == 409 and again.json()["error"]["code"] == "CONFLICT"
    merged = upload(OwnerClient(other_owner), download.content, merge="true")
    assert merged.status_code == 201 and merged.json()["created"]["memories"] == 0


def test_a_damaged_upload_is_refused_with_a_report_and_changes_nothing(
    owner_actor, agent_actor, other_owner
):
    build_store(owner_actor, agent_actor)
    data = OwnerClient(owner_actor.user).get("/packages/export/").content
    grace = OwnerClient(other_owner)
    before = database_dump()

    response = upload(grace, data[: len(data) // 2])

    assert response.status_code == 400
    assert (
        response.json()["error"]["code"] == "VALIDATION_ERROR"
        and response.json()["error"]["details"]
    )
    assert database_dump() == before


def test_uploads_need_a_file_a_session_and_csrf(owner):
    client = OwnerClient(owner)
    missing = client.django.post(API + "/packages/import/", {}, HTTP_X_CSRFTOKEN=client.csrf_token)
    assert (
        missing.status_code == 400 and missing.json()["error"]["details"][0]["field"] == "package"
    )
    bad_flag = upload(client, b"x", merge="sometimes")
    assert bad_flag.status_code == 400
    no_csrf = OwnerClient(owner, csrf=False).django.post(API + "/packages/import/", {})
    assert no_csrf.status_code == 403
    assert OwnerClient(None).get("/packages/export/").status_code == 401
