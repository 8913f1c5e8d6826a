"""The tools the MCP server registers: each app's tools (`memories.mcp_tools`,
`handoff.mcp_tools`) with their titles and hints, plus `memory_capabilities`, which spans
the apps and so lives here.

Tool names, argument names and descriptions are a public contract (tests/mcp/tools.json
holds them); the tool bodies are plain functions of the calling `Actor`, which
`calls.as_tool` turns into SDK tools.
"""

from __future__ import annotations

from mcp_types import ToolAnnotations

from continuity.capabilities import capabilities
from foundation.actors import Actor
from handoff import mcp_tools as handoff_tools
from memories import mcp_tools as memory_tools


def memory_capabilities(actor: Actor) -> dict:
    """Describe this Continuity server and your access to it: your agent name, your token's
    scopes, project restriction and expiry, the server profile, the retrieval channels
    available, and the limits and budgets that apply.

    Call it when a tool answers FORBIDDEN or you need a limit before a large write. It is
    not needed in normal use."""
    return capabilities(actor)


def _writes(*, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent,
        open_world_hint=False,
    )  # fmt: skip


READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

# tool body -> (title, annotations), in the order tools/list shows them.
TOOLS = {
    memory_tools.memory_bootstrap: ("Load session memory", READ_ONLY),
    memory_tools.memory_recall: ("Recall memories", READ_ONLY),
    memory_tools.memory_remember: ("Remember a statement", _writes()),
    memory_tools.memory_checkpoint: ("Save a checkpoint", _writes()),
    memory_tools.memory_link: ("Link memories", _writes(idempotent=True)),
    memory_tools.memory_forget: (
        "Forget a wrong or obsolete memory", _writes(destructive=True, idempotent=True),
    ),
    memory_tools.memory_history: ("Memory history", READ_ONLY),
    memory_tools.memory_context: ("Build a context block", READ_ONLY),
    memory_capabilities: ("Server capabilities and your access", READ_ONLY),
    handoff_tools.memory_handoff_create: ("Hand a task over", _writes()),
    handoff_tools.memory_handoff_resume: ("Resume a handed-over task", _writes()),
}  # fmt: skip
