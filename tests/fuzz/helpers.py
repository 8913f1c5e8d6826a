"""What every fuzzing test checks of an answer."""

from __future__ import annotations

import json


def assert_enveloped(response) -> None:
    """An error answer (4xx) is the one envelope {"error": {"code", "message", "details"}}."""
    if response.status_code < 400:
        return
    body = json.loads(response.content)
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"].isupper() and body["error"]["message"], body
    assert isinstance(body["error"]["details"], list), body
