"""Helpers for the agent API tests: a JSON client, the error envelope, a database dump."""

from __future__ import annotations

import json

from django.apps import apps

# Fields that change on every authenticated request by design, not by the operation.
VOLATILE_FIELDS = {
    ("accounts", "personalaccesstoken"): {"last_used_at", "last_refusal_at", "last_refusal"}
}
# Counts of requests and sign-in attempts: every call changes them, refused or not.
VOLATILE_MODELS = {("accounts", "throttlecounter")}


class ApiClient:
    """Django's test client speaking JSON to /api/v1/ with one bearer token (or none)."""

    def __init__(self, client, raw_token: str | None):
        self.client = client
        self.headers = {"Authorization": f"Bearer {raw_token}"} if raw_token else {}

    def request(self, method: str, path: str, body=None, *, query=None, headers=None, raw=None):
        url = path if path.startswith("/") else f"/api/v1/{path}"
        kwargs = {"headers": {**self.headers, **(headers or {})}}
        if method in ("get", "delete", "head", "options"):
            if query is not None:
                kwargs["data"] = query
        elif raw is not None:
            kwargs |= {"data": raw, "content_type": "application/json"}
        else:  # no body at all, as `curl -X POST` sends it, when body is None
            data = "" if body is None else json.dumps(body)
            kwargs |= {"data": data, "content_type": "application/json"}
        return getattr(self.client, method)(url, **kwargs)

    def get(self, path, query=None, **kwargs):
        return self.request("get", path, query=query, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request("post", path, body, **kwargs)


def database_dump() -> dict:
    """Every row of every model, in primary-key order, minus the volatile fields."""
    dump = {}
    for model in apps.get_models():
        label = (model._meta.app_label, model._meta.model_name)
        if label in VOLATILE_MODELS:
            continue
        skip = VOLATILE_FIELDS.get(label, set())
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in skip]
        dump[".".join(label)] = list(model.objects.order_by("pk").values_list(*fields))
    return dump


def assert_envelope(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], list)
    return body["error"]
