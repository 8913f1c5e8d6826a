"""Record the stdio door's handshake (continuity/mcp/handshake.json) from the server itself.

    manage.py mcp_handshake

Run it after a tool, its description or the server's version changed; a test fails until
the file matches what the server answers.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Write continuity/mcp/handshake.json: the stdio server's initialize and tools/list."
    requires_system_checks = []

    def handle(self, *args, **options):
        from continuity.mcp import build_server
        from continuity.mcp.stdio import write_handshake

        path = write_handshake(build_server(token="cont_pat_handshake"))
        self.stdout.write(f"wrote {path}")
