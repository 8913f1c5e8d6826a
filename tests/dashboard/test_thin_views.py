"""Dashboard views are thin doors (CONVENTIONS, "a door only parses, calls, shapes"): the
test walks every route of the dashboard from its URL configuration, so a new view cannot
skip the check. No view module runs a query (the reads are selectors); no view function
is longer than a screenful."""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap

from django.urls import URLPattern, URLResolver

from dashboard import urls

MAX_VIEW_LINES = 25
# Its version check moves into memory_correct (expected_version), which shortens it.
LONGER_FOR_NOW = {"dashboard.views.memory_actions.correct"}
ORM_CALLS = {
    "objects", "filter", "exclude", "annotate", "aggregate", "values_list",
    "order_by", "in_bulk", "select_related", "prefetch_related", "raw", "extra",
}  # fmt: skip


def _views(patterns=urls.urlpatterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _views(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            view = pattern.callback
            if not hasattr(view, "view_class"):  # sign-in and out are Django's own views
                yield inspect.unwrap(view)


def _name(view) -> str:
    return f"{view.__module__}.{view.__qualname__}"


def _body_lines(view) -> int:
    """Lines of the function body, its docstring left out."""
    node = ast.parse(textwrap.dedent(inspect.getsource(view))).body[0]
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


def _queries(module) -> list[str]:
    tree = ast.parse(inspect.getsource(module))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ORM_CALLS:
            found.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django.db"):
            found.append(f"line {node.lineno}: from {node.module} import")
    return found


def test_every_dashboard_route_is_checked():
    names = {_name(view) for view in _views()}
    assert len(names) >= 32, sorted(names)
    assert {"capture.views.inbox", "handoff.views.handoffs", "injection.views.injections"} <= names


def test_no_dashboard_view_module_runs_a_query():
    modules = {sys.modules[view.__module__] for view in _views()}
    offenders = {module.__name__: _queries(module) for module in modules}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_every_dashboard_view_only_parses_calls_and_renders_in_a_screenful():
    long = {
        _name(view): _body_lines(view)
        for view in _views()
        if _body_lines(view) > MAX_VIEW_LINES and _name(view) not in LONGER_FOR_NOW
    }
    assert long == {}
