"""The wire shape of a handoff capsule, with the audience as an argument (as memories.shapes).

Agents and the owner see the same capsule, with its derived `state`; an absent `from_agent`
(the owner wrote it) or `resumed_by` is null. A package (`export`) keeps the stored values
and leaves out `state`, which an import derives again.
"""

from __future__ import annotations

from handoff.models import HandoffCapsule
from memories.shapes import Audience, check_audience, when


def capsule_shape(capsule: HandoffCapsule, audience: Audience) -> dict:
    check_audience(audience)
    shape = {
        "id": str(capsule.pk),
        "task_id": capsule.task_id,
        "summary": capsule.summary,
        "status": capsule.status,
        "decisions": list(capsule.decisions),
        "next_steps": list(capsule.next_steps),
        "artifacts": list(capsule.artifacts),
        "blockers": list(capsule.blockers),
        "from_agent": capsule.from_agent or None,
        "created_at": when(capsule.created_at),
        "expires_at": when(capsule.expires_at),
        "resumed_at": when(capsule.resumed_at),
        "resumed_by": capsule.resumed_by or None,
        "resume_count": capsule.resume_count,
        "state": capsule.state,
    }
    if audience == "export":
        del shape["state"]
        shape |= {"from_agent": capsule.from_agent, "resumed_by": capsule.resumed_by}
    return shape
