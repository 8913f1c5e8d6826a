"""The shape every input must have before any door parses it further: JSON nested at most
`MAX_DEPTH` levels, integers a JavaScript client can hold, finite numbers, and text that can
be stored — valid Unicode (no unpaired surrogate) without NUL (PostgreSQL cannot store
U+0000).

One place for every door: the HTTP middleware (agent API, capture, owner API), the MCP
server's tool calls, and the package reader call it, so deep nesting, huge numbers and lone
surrogates are refused with VALIDATION_ERROR at the door instead of failing deep in a query
or a recursion (HTTP 500).
"""

from __future__ import annotations

import json
from typing import Any

from foundation.errors import ServiceError, shown_name, validation_error

MAX_DEPTH = 32
MAX_INTEGER = 2**53 - 1  # the largest integer a JSON number keeps exactly in JavaScript
_INFINITY = float("inf")


class _NotFinite(Exception):
    """NaN or Infinity in JSON text: Python reads them, JSON does not allow them."""


def text_problem(text: str) -> str | None:
    """Why this string cannot be stored, or None."""
    if "\x00" in text:
        return "contains a NUL character (U+0000), which cannot be stored"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains an unpaired surrogate, which is not valid Unicode"
    return None


def json_problem(value: Any, *, max_depth: int = MAX_DEPTH) -> tuple[str, str] | None:
    """(field path, problem) for the first part of a decoded JSON value no door accepts, or
    None. Iterative, so a hostile depth cannot exhaust the stack while it is measured."""
    pending: list[tuple[Any, str, int]] = [(value, "", 1)]
    while pending:
        node, path, depth = pending.pop()
        if isinstance(node, dict | list):
            if depth > max_depth:
                return path.split(".")[0], f"nests deeper than {max_depth} levels"
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                child_path = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and (problem := text_problem(key)):
                    return path, f"has a key that {problem}"
                pending.append((child, child_path, depth + 1))
        elif isinstance(node, str):
            if problem := text_problem(node):
                return path, problem
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, int):
            if abs(node) > MAX_INTEGER:
                return path, f"is an integer beyond ±{MAX_INTEGER}"
        elif isinstance(node, float) and (node != node or node in (_INFINITY, -_INFINITY)):
            return path, "is not a finite number"
    return None


def check_json(value: Any, *, where: str = "") -> None:
    """Raise VALIDATION_ERROR naming the field when `value` has a part no door accepts."""
    found = json_problem(value)
    if found is None:
        return
    path, problem = shown_name(found[0]), found[1]
    field = ".".join(part for part in (where, path) if part)
    raise validation_error(f"{field or 'The input'} {problem}.", field=field or None)


def _refuse_constant(name: str):
    raise _NotFinite(name)


def _decode(raw: bytes | str, where: str) -> Any:
    """The decoded value; ServiceError for a shape no door accepts, ValueError for text that
    is not JSON at all."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        raise validation_error(
            f"{where or 'The input'} nests deeper than {MAX_DEPTH} levels.", field=where or None
        ) from None
    except _NotFinite as constant:
        raise validation_error(
            f"{where or 'The input'} holds {constant}, which JSON does not allow.",
            field=where or None,
        ) from None
    check_json(value, where=where)
    return value


def loads(raw: bytes | str, *, where: str = "") -> Any:
    """json.loads, strict: the shape checked as above, NaN and Infinity refused. Raises
    ServiceError (VALIDATION_ERROR) for anything not accepted, never RecursionError."""
    try:
        return _decode(raw, where)
    except (ValueError, UnicodeDecodeError) as error:
        raise validation_error(
            f"{where or 'The input'} is not valid JSON: {error}", field=where or None
        ) from None


def body_problem(raw: bytes) -> ServiceError | None:
    """For the HTTP doors: the error for a JSON body whose shape no door accepts, or None.
    A body that is not JSON at all is left to the door's own parser, which says so."""
    try:
        _decode(raw, "")
    except ServiceError as error:
        return error
    except (ValueError, UnicodeDecodeError):
        return None
    return None
