"""Serve the MCP tools over stdio, for agents that start their MCP servers as local processes.

    CONTINUITY_TOKEN=cont_pat_... manage.py mcp_stdio

`manage.py` runs it behind continuity/stdio_front.py, which answers the handshake while
this loads. Every call acts with that token and checks it again, so a token revoked or expired while the
agent runs stops working at once. stdout carries the protocol only; logs go to stderr.
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from accounts.tokens import token_authenticate
from foundation.errors import ServiceError


def checked_token(raw: str):
    """The token row for CONTINUITY_TOKEN's value, or a CommandError saying what to do."""
    if not raw:
        raise CommandError(
            "CONTINUITY_TOKEN is not set. Create an agent token (dashboard, or "
            "manage.py create_token) and pass it in the environment of this command."
        )
    try:
        return token_authenticate(raw)
    except ServiceError as error:
        raise CommandError(f"CONTINUITY_TOKEN was refused: {error.message}") from None


def announce(stderr, token) -> None:
    """The one line a client's log shows; nothing may reach stdout but the protocol."""
    stderr.write(
        f"Continuity MCP over stdio, acting as agent {token.agent_name!r} "
        f"of {token.owner.get_username()}.\n"
    )


class Command(BaseCommand):
    help = "Serve the Continuity MCP tools over stdio, acting with the token in CONTINUITY_TOKEN."
    # Agents start this at every session: skip the system checks (URLs, admin, templates),
    # which cost start-up time and concern doors this command does not serve.
    requires_system_checks = []

    def handle(self, *args, **options):
        raw = os.environ.get("CONTINUITY_TOKEN", "").strip()
        announce(self.stderr, checked_token(raw))
        # Tool calls run in worker threads with connections of their own.
        connections.close_all()

        from continuity.mcp import build_server

        build_server(token=raw).run("stdio")
