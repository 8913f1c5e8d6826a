"""The owner's own strip markers: pairs of strings fencing text another tool injected into
prompts, which capture drops like Continuity's own block (capture/markers.py)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from capture.markers import MAX_OWNER_MARKERS, marker_problem
from capture.models import StripMarker
from foundation.actors import Actor
from foundation.errors import not_found, validation_error


def _marker(value, name: str) -> str:
    if not isinstance(value, str):
        text = gettext_noop("The start marker must be text.")
        if name == "end":
            text = gettext_noop("The end marker must be text.")
        raise validation_error(text, field=name)
    return value.strip()


@transaction.atomic
def strip_marker_add(*, actor: Actor, start, end) -> StripMarker:
    """Owner-only. Idempotent: the same pair twice is one row. Refuses an empty, overlong or
    multi-line side, and a list already at MAX_OWNER_MARKERS; a refusal writes nothing.
    Applies to batches parsed from now on (stored events are not re-read)."""
    actor.require_owner(gettext_noop("manage capture strip markers"))
    start, end = _marker(start, "start"), _marker(end, "end")
    if problem := marker_problem(start, end):
        raise validation_error(problem[1], field=problem[0])
    existing = StripMarker.objects.filter(owner=actor.user, start=start, end=end).first()
    if existing is not None:
        return existing
    if StripMarker.objects.select_for_update().filter(owner=actor.user).count() >= (
        MAX_OWNER_MARKERS
    ):
        raise validation_error(
            gettext_noop("At most %(n)s strip markers."), field="start", n=MAX_OWNER_MARKERS
        )
    try:
        with transaction.atomic():
            return StripMarker.objects.create(owner=actor.user, start=start, end=end)
    except IntegrityError:  # the same pair added at the same moment: that row is this one
        return StripMarker.objects.get(owner=actor.user, start=start, end=end)


def strip_marker_delete(*, actor: Actor, marker_id) -> None:
    """Owner-only; another owner's marker or none at all is the same NOT_FOUND."""
    actor.require_owner(gettext_noop("manage capture strip markers"))
    try:
        pk = int(str(marker_id))
    except ValueError:
        raise not_found("strip marker") from None
    deleted, _ = StripMarker.objects.filter(owner=actor.user, pk=pk).delete()
    if not deleted:
        raise not_found("strip marker")
