"""The MCP door (DESIGN §5): the memory tools over Streamable HTTP at /mcp and over stdio."""

from continuity.mcp.server import MCP_PATH, build_server, http_app

__all__ = ["MCP_PATH", "build_server", "http_app"]
