"""Ready-to-paste set-up for a new token: for each client continuity_client.clients knows,
the `continuity setup` command and the client's own entry, this server's URL and the token
filled in. The text comes from that module, so it is exactly what `continuity setup` writes.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from django.conf import settings

from accounts.tokens import TOKEN_PRESETS
from continuity_client import clients
from continuity_client.token_check import NEEDED_SCOPES


@dataclass(frozen=True)
class ClientGuide:
    name: str
    title: str
    where: str
    note: str
    command: str  # `continuity setup ...`
    blocks: list[clients.Block]
    first: bool  # the client the chosen preset is for


def setup_guide(*, server_url: str, token: str, scopes: list[str], preset: str = "") -> list:
    """One guide per client. The `continuity setup` command installs the hooks too when the
    token has the hooks' scopes (else it carries --mcp-only); the stdio client runs this
    server's own interpreter and manage.py."""
    data_dir = os.environ.get("CONTINUITY_DATA_DIR")
    connection = clients.Connection(
        url=server_url.rstrip("/"), token=token, python=sys.executable,
        manage=str(settings.BASE_DIR / "manage.py"),
        stdio_env={"CONTINUITY_DATA_DIR": data_dir} if data_dir else {},
    )  # fmt: skip
    hooks = all(scope in scopes for scope in NEEDED_SCOPES)
    chosen = TOKEN_PRESETS[preset].client if preset in TOKEN_PRESETS else ""
    return [
        ClientGuide(
            name=name,
            title=client.title,
            where=client.where,
            note=client.note,
            command=clients.setup_command(name, connection, mcp_only=not hooks),
            blocks=clients.paste(name, connection),
            first=name == chosen,
        )  # fmt: skip
        for name, client in clients.CLIENTS.items()
    ]
