"""Structured values carried by keyed memories, and how writes combine them."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext_noop

from foundation.errors import validation_error

MAX_VALUE_BYTES = 16_000
MAX_VALUE_DEPTH = 8


def check_value(value: Any) -> dict | None:
    """A value is a JSON object of bounded size and depth, or absent."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise validation_error(gettext_noop("value must be a JSON object."), field="value")
    if _has_nul(value):
        # PostgreSQL cannot store NUL in jsonb, and no text needs one.
        raise validation_error(
            gettext_noop("value must not contain NUL characters."), field="value"
        )
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise validation_error(
            gettext_noop("value is not valid JSON: %(problem)s."), field="value", problem=str(error)
        ) from None
    if len(encoded.encode()) > MAX_VALUE_BYTES:
        raise validation_error(
            gettext_noop("value is larger than %(limit)s bytes of JSON."),
            field="value",
            limit=MAX_VALUE_BYTES,
        )
    if _depth(value) > MAX_VALUE_DEPTH:
        raise validation_error(
            gettext_noop("value nests deeper than %(limit)s levels."),
            field="value",
            limit=MAX_VALUE_DEPTH,
        )
    return value


def _has_nul(node: Any) -> bool:
    if isinstance(node, str):
        return "\x00" in node
    if isinstance(node, dict):
        return any(_has_nul(key) or _has_nul(child) for key, child in node.items())
    if isinstance(node, list):
        return any(_has_nul(child) for child in node)
    return False


def _depth(node: Any) -> int:
    if isinstance(node, dict):
        return 1 + max((_depth(child) for child in node.values()), default=0)
    if isinstance(node, list):
        return 1 + max((_depth(child) for child in node), default=0)
    return 0


def merge_values(base: dict | None, patch: dict) -> dict:
    """Deep-merge `patch` into `base` with JSON Merge Patch semantics (RFC 7396).

    Objects merge key by key, recursively; arrays and scalars in the patch replace what was
    there; a `null` in the patch removes the key. Deterministic: the result depends only on
    the two inputs, and keys keep the base's order with new keys appended.
    """
    result = dict(base or {})
    for name, incoming in patch.items():
        if incoming is None:
            result.pop(name, None)
        elif isinstance(incoming, dict) and isinstance(result.get(name), dict):
            result[name] = merge_values(result[name], incoming)
        elif isinstance(incoming, dict):
            result[name] = merge_values({}, incoming)
        else:
            result[name] = incoming
    return result
