"""A no-op MCP server on the same SDK and transport settings as Continuity's `/mcp`:
stateless Streamable HTTP with JSON responses, the same tool names and argument shapes,
answers that do nothing. `bench/load.py` drives it with the same load as Continuity to
measure the ceiling of the protocol stack on this machine.

    .venv/bin/python -m uvicorn bench.noop_mcp_server:app --port 8123
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("noop")


@server.tool()
def memory_recall(query: str, project_key: str | None = None, limit: int = 10) -> dict:
    return {"memories": [], "no_confident_match": True, "next_cursor": None}


@server.tool()
def memory_remember(
    content: str, kind: str, scope_type: str | None = None, scope_key: str | None = None,
    tags: list[str] | None = None, retrieval_hints: list[str] | None = None,
) -> dict:  # fmt: skip
    return {"id": "00000000-0000-0000-0000-000000000000", "version": 1, "status": "active"}


@server.tool()
def memory_context(
    query: str, purpose: str = "general", token_budget: int = 1500, project_key: str | None = None
) -> dict:
    return {
        "context": "",
        "items": [],
        "omitted": [],
        "budget": {"used": 0, "remaining": token_budget},
    }


app = server.streamable_http_app(
    streamable_http_path="/mcp", stateless_http=True, json_response=True
)
