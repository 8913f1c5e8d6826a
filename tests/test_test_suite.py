"""The test suite's own rules: a test module never imports another test module.

Importing a test module runs its module-level code and can collect its tests twice; shared
helpers live in helper modules (tests/<app>/helpers.py, tests/secrets_corpus.py,
tests/factories.py) and fixtures in conftest.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def is_test_module(name: str) -> bool:
    return name.split(".")[-1].startswith("test_") and name.split(".")[0] == "tests"


def imported_test_modules(source: str, module: str) -> list[str]:
    """Test modules that `source` (the module named `module`) imports: `import
    tests.x.test_y`, `from tests.x.test_y import z`, `from tests.x import test_y`, and the
    relative forms of each."""
    package = module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            origin = ".".join([*base, *filter(None, (node.module or "").split("."))])
            if is_test_module(origin):
                found.append(origin)
            else:  # `from tests.x import test_y` imports the module test_y
                found += [
                    f"{origin}.{alias.name}"
                    for alias in node.names
                    if is_test_module(f"{origin}.{alias.name}")
                    and (ROOT / Path(*origin.split(".")) / f"{alias.name}.py").exists()
                ]
    return found


def offenders(skip=frozenset()) -> dict[str, list[str]]:
    result = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        relative = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        if relative not in skip and (imports := imported_test_modules(source, module_name(path))):
            result[relative] = imports
    return result


def test_no_test_module_imports_another_test_module():
    assert offenders() == {}


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("from tests.memories.test_gates import CAUGHT", ["tests.memories.test_gates"]),
        ("import tests.mcp.test_http", ["tests.mcp.test_http"]),
        ("from tests.mcp import test_http", ["tests.mcp.test_http"]),
        ("from .test_api_schemas import assert_enveloped", ["tests.fuzz.test_api_schemas"]),
        ("from ..dashboard.test_tabs import x", ["tests.dashboard.test_tabs"]),
        ("from tests.fuzz.helpers import assert_enveloped", []),
        ("from tests.mcp import live", []),
        ("from tests import factories", []),
    ],
)
def test_the_check_sees_every_form_of_import(source, caught):
    assert imported_test_modules(source, "tests.fuzz.test_example") == caught
