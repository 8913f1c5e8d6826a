"""The layout is the architecture (docs/design.md §2): floors that import only downwards, no
import loop anywhere, and modules small enough to read. These tests read the code itself, so
a new module or import cannot drift from the plan unnoticed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "continuity",
    "dashboard",
    "portability",
    "injection",
    "handoff",
    "capture",
    "memories",
    "accounts",
    "foundation",
    "continuity_client",
)
MAX_MODULE_LINES = 400


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)


def _cycles(graph: grimp.ImportGraph, nodes: set[str], edges) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for other in edges(node):
            if other not in nodes:
                continue
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return sorted(found)


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_no_two_packages_import_each_other():
    graph = _graph()

    def edges(package: str):
        return {
            imported.split(".")[0]
            for module in graph.find_children(package) | {package}
            for imported in graph.find_modules_directly_imported_by(module)
            if imported.split(".")[0] != package
        }

    cycles = _cycles(graph, set(PACKAGES), edges)
    assert cycles == [], f"packages that import each other: {cycles}"


def test_no_import_cycle_between_modules_of_one_package():
    graph = _graph()
    modules = {module for package in PACKAGES for module in graph.find_descendants(package)}
    modules |= set(PACKAGES)

    def edges(module: str):
        return graph.find_modules_directly_imported_by(module)

    cycles = _cycles(graph, modules, edges)
    assert cycles == [], "import loops:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_no_module_is_over_the_size_limit():
    oversized = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue  # generated, and never edited by hand after it shipped
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_MODULE_LINES:
                oversized.append(f"{path.relative_to(ROOT)}: {lines}")
    assert oversized == [], f"modules over {MAX_MODULE_LINES} lines: {oversized}"
