"""ASGI entry point: `continuity.asgi:application`, a small dispatcher.

Lifespan and /mcp go to the MCP SDK's app; everything else goes to Django. Django's ASGI
handler does not speak lifespan, and the MCP app needs it: its lifespan starts the session
manager's task group, without which every MCP request fails ("Task group is not
initialized"), even in stateless mode.
"""

import logging
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
django_application = get_asgi_application()

from continuity.mcp import MCP_PATH, http_app  # noqa: E402 - needs Django set up first
from foundation.errors import unavailable_error  # noqa: E402

mcp_application = http_app()
logger = logging.getLogger("continuity.asgi")


async def application(scope, receive, send):
    path = scope.get("path", "")
    if scope["type"] == "lifespan" or path == MCP_PATH or path.startswith(MCP_PATH + "/"):
        try:
            await mcp_application(scope, receive, send)
        except Exception as error:  # an outage is OperationalError or InterfaceError
            if unavailable_error(error) is None:
                raise
            # Already answered 503 by the MCP app's error handler, which then re-raises so
            # that servers may log it: one line is enough for an outage.
            logger.warning("database unavailable in %s: %s", path, error)
    else:
        await django_application(scope, receive, send)
