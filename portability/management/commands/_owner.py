"""What the package commands share: finding the owner, and printing a service error."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from foundation.actors import Actor
from foundation.errors import ServiceError


def owner_actor(username: str) -> Actor:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"No user named {username!r}.")
    return Actor.owner(user)


def failure(error: ServiceError) -> CommandError:
    """The error and every problem it lists, one per line, for a person at a terminal."""
    lines = [f"{error.code}: {error.message}"]
    for detail in error.details:
        if isinstance(detail, dict) and "message" in detail:
            where = ":".join(str(detail[part]) for part in ("file", "line") if detail.get(part))
            field = f" [{detail['field']}]" if detail.get("field") else ""
            lines.append(f"  - {where + ' ' if where else ''}{detail['message']}{field}")
        else:
            lines.append(f"  - {json.dumps(detail, ensure_ascii=False)}")
    return CommandError("\n".join(lines))
