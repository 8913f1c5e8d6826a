#!/usr/bin/env python
"""Django's command-line utility for Continuity."""

import os
import sys


def main() -> None:
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
