"""The memory routes of the agent API (mounted by `continuity.api`)."""

from memories.api.routes import router

__all__ = ["router"]
