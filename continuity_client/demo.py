"""`continuity demo`: the two-agent story, told by the server checkout this client came from.

The client imports no server package, so it hands over to `run.py demo` beside it, which
runs the story on a temporary store of its own and removes it afterwards. Nothing here
reads or writes the client's configuration.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUN_PY = Path(__file__).resolve().parents[1] / "run.py"


def run(out=sys.stdout) -> int:
    if not RUN_PY.is_file():
        print(
            "continuity: the demo needs the Continuity checkout (run.py beside "
            f"continuity_client/); {RUN_PY} is missing. Run `python3 run.py demo` there.",
            file=sys.stderr,
        )
        return 2
    out.flush()
    return subprocess.run([sys.executable, str(RUN_PY), "demo"], cwd=RUN_PY.parent).returncode
