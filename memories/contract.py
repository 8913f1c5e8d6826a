"""What agents are promised about memories: bounds, defaults, and the words that quote them.

One number, one place. The services enforce these bounds and take these defaults; the MCP
tools' argument schemas, the agent API's schemas and OpenAPI text, and /capabilities quote
them from here. A description that names a bound or a default is built from the constant
(f"... Default {RECALL_DEFAULT_LIMIT}."), never written as a literal, so the text cannot
drift from the rule.

The content limit is part of the data model (DESIGN §3; a database CHECK constraint holds
it too), so it is a constant, not a setting.

This module imports only the model choices, so every part of the app (services, selectors,
retrieval) can import it without a loop.
"""

from __future__ import annotations

from memories.models.choices import MAX_CONTENT_CHARS

# --- recall ---------------------------------------------------------------------------------
MAX_QUERY_CHARS = 1000
MAX_ALT_QUERIES = 5
RECALL_MAX_LIMIT = 100
RECALL_DEFAULT_LIMIT = 20
MAX_CURSOR_CHARS = 2000

# --- context packs and bootstrap --------------------------------------------------------------
MIN_TOKEN_BUDGET = 50
MAX_TOKEN_BUDGET = 32_000
CONTEXT_DEFAULT_BUDGET = 2000
BOOTSTRAP_DEFAULT_BUDGET = 1500
CONTEXT_MAX_MEMORIES = 100
CONTEXT_DEFAULT_MAX_MEMORIES = 20
PURPOSES = ("general", "coding", "research")
DEFAULT_PURPOSE = "general"

# --- history --------------------------------------------------------------------------------
HISTORY_MAX_LIMIT = 100
HISTORY_DEFAULT_LIMIT = 50

# --- writes ---------------------------------------------------------------------------------
MAX_KEY_CHARS = 200
MAX_SCOPE_KEY_CHARS = 300
MAX_TAGS = 20
MAX_TAG_CHARS = 50
MAX_HINTS = 10
MAX_HINT_CHARS = 300
MAX_REASON_CHARS = 500
MAX_IDEMPOTENCY_KEY_CHARS = 200
CHECKPOINT_MAX_MEMORIES = 20
MAX_URI_CHARS = 2000

# --- bulk review (the owner's) ----------------------------------------------------------------
# One action over at most this many memories or proposals per request; "all matching a
# filter" runs over the newest this many and says how many it left.
MAX_BULK_ITEMS = 500

# --- multi-step query -----------------------------------------------------------------------
QUERY_MAX_STEPS = 8
QUERY_DEFAULT_STEPS = 4
QUERY_MIN_TIMEOUT_MS = 10
QUERY_MAX_TIMEOUT_MS = 10_000
QUERY_DEFAULT_TIMEOUT_MS = 2000
QUERY_MAX_MIN_EVIDENCE = 50
QUERY_DEFAULT_MIN_EVIDENCE = 1


def default(value) -> str:
    """The sentence every description ends with when its argument has a default."""
    return f"Default {value}."


# --- descriptions that quote a bound or a default (the agent API's OpenAPI text) -------------
CONTENT = f"One stable statement, at most {MAX_CONTENT_CHARS:,} characters once trimmed."
RECALL_LIMIT = f"Most memories to return (1-{RECALL_MAX_LIMIT}). {default(RECALL_DEFAULT_LIMIT)}"
HISTORY_LIMIT = f"Most events to return (1-{HISTORY_MAX_LIMIT}). {default(HISTORY_DEFAULT_LIMIT)}"
CONTEXT_BUDGET = "Most tokens the context may use (estimated as UTF-8 bytes / 4). " + default(
    CONTEXT_DEFAULT_BUDGET
)
BOOTSTRAP_BUDGET = (
    "Most tokens the session context may use (estimated as UTF-8 bytes / 4). "
    + default(BOOTSTRAP_DEFAULT_BUDGET)
)
CONTEXT_MAX_MEMORIES_TEXT = f"Most memories to include (1-{CONTEXT_MAX_MEMORIES}). " + default(
    CONTEXT_DEFAULT_MAX_MEMORIES
)
PURPOSE = f"What the context is for: {', '.join(PURPOSES)}. {default(DEFAULT_PURPOSE)}"
CHECKPOINT_MEMORIES = (
    f"Durable facts learned, at most {CHECKPOINT_MAX_MEMORIES}; each linked derived_from the "
    "summary."
)
QUERY_STEPS = f"Most parts to answer (1-{QUERY_MAX_STEPS}). {default(QUERY_DEFAULT_STEPS)}"
QUERY_TIMEOUT = (
    f"Time budget in milliseconds ({QUERY_MIN_TIMEOUT_MS}-{QUERY_MAX_TIMEOUT_MS}). "
    + default(QUERY_DEFAULT_TIMEOUT_MS)
)
QUERY_MIN_EVIDENCE = (
    f"Memories each part needs to count as answered (1-{QUERY_MAX_MIN_EVIDENCE}). "
    + default(QUERY_DEFAULT_MIN_EVIDENCE)
)
