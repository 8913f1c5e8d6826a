"""One contract per app (memories.contract, handoff.contract): every bound and default an agent
is told about is one constant, which the services apply and every door quotes.

The content limit is part of the data model (a database constraint holds it), so it is no
setting; each default (context and bootstrap budgets, recall and history limits) is written
once, and the descriptions that quote one are built from it."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import anyio
import pytest

from continuity.api import api as agent_api
from continuity.mcp import build_server
from handoff import contract as handoff_contract
from memories import contract, gates, retrieval
from memories.models import MAX_CONTENT_CHARS as MODEL_CONTENT_LIMIT
from memories.selectors import memory_history

ROOT = Path(__file__).resolve().parents[2]
# The modules that state bounds and defaults to agents, and those that apply the defaults.
DOORS = [
    "memories/api/schemas.py", "memories/api/routes.py", "memories/mcp_tools/arguments.py",
    "memories/mcp_tools/reading.py", "memories/mcp_tools/writing.py", "memories/owner_api.py",
    "handoff/api.py", "handoff/mcp_tools.py", "continuity/api.py", "continuity/capabilities.py",
    "continuity/mcp/tools.py",
]  # fmt: skip
SERVICES = ["memories/retrieval/context.py", "memories/retrieval/recall.py",
            "memories/retrieval/query.py", "memories/selectors.py"]  # fmt: skip
DEFAULTED = {"token_budget", "max_memories", "limit", "max_steps", "timeout_ms", "min_evidence"}
QUOTED_NUMBER = re.compile(r"\b[Dd]efault:? \(?\d|\bat most \d|\bup to \d")


def _mcp_tools() -> dict:
    return {tool.name: tool for tool in anyio.run(build_server().list_tools)}


def _openapi_properties(schema: str) -> dict:
    return agent_api.get_openapi_schema()["components"]["schemas"][schema]["properties"]


def test_the_content_limit_is_the_data_models_and_no_setting_pretends_otherwise(settings):
    assert not hasattr(settings, "CONTINUITY_MAX_CONTENT_CHARS")
    assert contract.MAX_CONTENT_CHARS == gates.MAX_CONTENT_CHARS == MODEL_CONTENT_LIMIT
    remember = _mcp_tools()["memory_remember"].input_schema["properties"]
    assert remember["content"]["maxLength"] == contract.MAX_CONTENT_CHARS
    assert _openapi_properties("RememberIn")["content"]["maxLength"] == contract.MAX_CONTENT_CHARS
    assert (
        f"{contract.MAX_CONTENT_CHARS:,}"
        in _openapi_properties("RememberIn")["content"]["description"]
    )


@pytest.mark.parametrize("path", DOORS + SERVICES)
def test_no_module_writes_a_bound_or_default_as_a_literal(path):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if QUOTED_NUMBER.search(node.value):
                found.append(f"line {node.lineno}: {node.value[:70]!r}")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults))
            defaults += node.args.defaults + node.args.kw_defaults
            for argument, value in zip(arguments, defaults, strict=True):
                if argument.arg in DEFAULTED and isinstance(value, ast.Constant):
                    found.append(f"line {node.lineno}: {node.name}({argument.arg}={value.value})")
    assert found == [], f"{path} writes numbers the contract holds: {found}"


def test_each_default_is_the_one_the_service_applies_and_every_door_quotes():
    def default(function, argument):
        return inspect.signature(function).parameters[argument].default

    tools = {name: tool.input_schema["properties"] for name, tool in _mcp_tools().items()}
    cases = [
        (contract.CONTEXT_DEFAULT_BUDGET, default(retrieval.context_pack, "token_budget"),
         tools["memory_context"]["token_budget"], ("ContextIn", "token_budget")),
        (contract.BOOTSTRAP_DEFAULT_BUDGET, default(retrieval.bootstrap, "token_budget"),
         tools["memory_bootstrap"]["token_budget"], ("BootstrapParams", "token_budget")),
        (contract.RECALL_DEFAULT_LIMIT, default(retrieval.recall, "limit"),
         tools["memory_recall"]["limit"], ("RecallIn", "limit")),
        (contract.HISTORY_DEFAULT_LIMIT, default(memory_history, "limit"),
         tools["memory_history"]["limit"], ("HistoryParams", "limit")),
        (contract.CONTEXT_DEFAULT_MAX_MEMORIES, default(retrieval.context_pack, "max_memories"),
         tools["memory_context"]["max_memories"], ("ContextIn", "max_memories")),
    ]  # fmt: skip
    for value, applied, mcp_schema, (schema, field) in cases:
        assert applied == value and mcp_schema["default"] == value, (schema, field)
        assert f"Default {value}." in _openapi_properties(schema)[field]["description"]


def test_the_handoff_bounds_are_the_contracts_on_both_doors(settings):
    create = _mcp_tools()["memory_handoff_create"].input_schema["properties"]
    handoff_in = _openapi_properties("HandoffIn")

    assert create["summary"]["maxLength"] == handoff_contract.MAX_SUMMARY_CHARS
    assert create["task_id"]["maxLength"] == handoff_in["task_id"]["maxLength"]
    assert create["task_id"]["maxLength"] == handoff_contract.MAX_TASK_ID_CHARS
    days = str(settings.CONTINUITY_HANDOFF_DEFAULT_DAYS)
    for text in (create["expires_at"]["description"], handoff_in["expires_at"]["description"]):
        assert days in text and str(handoff_contract.MAX_EXPIRY_DAYS) in text
