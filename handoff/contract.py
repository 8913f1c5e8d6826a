"""The handoff list's state filter: one vocabulary for every door (owner API, dashboard).

A capsule's own state (`HandoffCapsule.state`) is `open` (not resumed yet), `resumed`
(still resumable until it expires) or `expired`. The filter takes one of those, or
`active`, which stands for both unexpired states (open or resumed): what an agent can
still resume, and what the dashboard's Handoffs tab counts.
"""

from __future__ import annotations

CAPSULE_STATES = ("open", "resumed", "expired")
ACTIVE = "active"
STATE_FILTERS = (ACTIVE, *CAPSULE_STATES)
STATE_FILTER_DESCRIPTION = (
    f"state must be one of: {', '.join(STATE_FILTERS)} ({ACTIVE} is every capsule not "
    "expired yet: open or resumed)."
)
