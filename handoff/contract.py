"""What agents are promised about handoff capsules: bounds, defaults, and the words that quote
them. The services enforce these; the MCP tools, the agent API and docs/handoffs.md quote
them from here (descriptions are built from the constants, never written as literals).

The summary limit is the model's (a database CHECK constraint holds it). How long a capsule
stays resumable by default is the operator's setting, CONTINUITY_HANDOFF_DEFAULT_DAYS.

The handoff list's state filter has one vocabulary for every door (owner API, dashboard).
A capsule's own state (`HandoffCapsule.state`) is `open` (not resumed yet), `resumed`
(still resumable until it expires) or `expired`. The filter takes one of those, or
`active`, which stands for both unexpired states (open or resumed): what an agent can
still resume, and what the dashboard's Handoffs tab counts.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext_noop

from foundation.messages import rendered
from handoff.models import MAX_SUMMARY_CHARS as MAX_SUMMARY_CHARS  # the model holds it

SCOPE = "handoff"
MAX_TASK_ID_CHARS = 300
MAX_ITEMS = 50
MAX_ITEM_CHARS = 1000
MAX_ARTIFACT_CHARS = 2000
MAX_EXPIRY_DAYS = 90
DEFAULT_STATUS = "in_progress"
DEFAULT_EXPIRY_SETTING = "CONTINUITY_HANDOFF_DEFAULT_DAYS"


def default_expiry_days() -> int:
    return settings.CONTINUITY_HANDOFF_DEFAULT_DAYS


def items_text(description: str, max_chars: int = MAX_ITEM_CHARS) -> str:
    """A list argument's description with its bounds."""
    return f"{description} At most {MAX_ITEMS} items of {max_chars:,} characters."


# The MCP tool's words for expires_at (agents read them in tools/list).
EXPIRES_AT_FOR_AGENTS = (
    "When the capsule stops being resumable, with a time zone (by default the server's "
    f"handoff lifetime, {default_expiry_days()} days unless configured; at most "
    f"{MAX_EXPIRY_DAYS})."
)
# The agent API's words for it (OpenAPI).
EXPIRES_AT = (
    f"When the capsule stops being resumable; default {DEFAULT_EXPIRY_SETTING} "
    f"({default_expiry_days()}) days, at most {MAX_EXPIRY_DAYS}."
)
STATUS = f"Default {DEFAULT_STATUS}."

CAPSULE_STATES = ("open", "resumed", "expired")
ACTIVE = "active"
STATE_FILTERS = (ACTIVE, *CAPSULE_STATES)
STATE_FILTER_TEMPLATE = gettext_noop(
    "state must be one of: %(states)s (%(active)s is every capsule not expired yet: open or "
    "resumed)."
)
STATE_FILTER_PARAMS = {"states": ", ".join(STATE_FILTERS), "active": ACTIVE}
STATE_FILTER_DESCRIPTION = rendered(STATE_FILTER_TEMPLATE, **STATE_FILTER_PARAMS)
