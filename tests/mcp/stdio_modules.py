"""Run `manage.py mcp_stdio` as a client starts it, and when it exits write the names of the
modules it had imported to the file named by the first argument (one a line).

    python -m tests.mcp.stdio_modules OUT_FILE    # then speak MCP on stdin/stdout
"""

from __future__ import annotations

import atexit
import signal
import sys
from pathlib import Path

from django.core.management import execute_from_command_line


def main() -> None:
    out = Path(sys.argv[1])
    atexit.register(lambda: out.write_text("\n".join(sorted(sys.modules)) + "\n"))
    # A client that closes the pipe may also terminate the process: exit through atexit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    execute_from_command_line(["manage.py", "mcp_stdio"])


if __name__ == "__main__":
    main()
