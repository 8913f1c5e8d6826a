"""ASGI entry point: `continuity.asgi:application`.

Django's ASGI handler does not speak the lifespan protocol, so this dispatcher answers
lifespan itself and hands every HTTP request to Django. Mounted ASGI apps (the MCP
endpoint) register here with their path prefix and a lifespan of their own.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
django_application = get_asgi_application()


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await django_application(scope, receive, send)
