"""The memory tools of the MCP door (DESIGN §5). Each docstring is the description an agent
reads: it says when to call the tool and when not to, so any client behaves well without an
extra prompt. Tool names, argument names and descriptions are a public contract.

Each tool is a plain function of the calling agent's `Actor` and its typed arguments that
calls one service or selector and returns the JSON answer; the MCP server
(`continuity.mcp`) registers it, supplying the actor from the token (no tool takes an
agent or user argument) and turning a ServiceError into a tool error. Every bound and
default an argument states is the contract's (`memories.contract`).
"""

from memories.mcp_tools.reading import (
    memory_bootstrap,
    memory_context,
    memory_history,
    memory_recall,
)
from memories.mcp_tools.writing import (
    memory_checkpoint,
    memory_forget,
    memory_link,
    memory_remember,
)

__all__ = [
    "memory_bootstrap",
    "memory_checkpoint",
    "memory_context",
    "memory_forget",
    "memory_history",
    "memory_link",
    "memory_recall",
    "memory_remember",
]
