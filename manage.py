#!/usr/bin/env python
"""Django's command-line utility for Continuity."""

import os
import sys


def main() -> None:
    if sys.argv[1:] == ["mcp_stdio"] and os.environ.get("CONTINUITY_STDIO_FRONT", "1") != "0":
        # Agents wait for the handshake: answer it before Django loads (stdio_front.py).
        from continuity.stdio_front import main as serve_stdio

        return serve_stdio()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        from django.conf import settings

        settings.INSTALLED_APPS  # noqa: B018 - resolve the configuration before any command
    except ImproperlyConfigured as error:
        # A contradictory configuration refuses to start with the reason, not a traceback.
        sys.exit(f"Continuity cannot start: {error}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
