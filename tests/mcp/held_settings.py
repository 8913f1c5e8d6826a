"""Continuity's settings, loaded only once the file named by CONTINUITY_TEST_HOLD exists:
a server start held mid-way, for a test to see what is answered before Django has loaded."""

import os
import time
from pathlib import Path

_hold = Path(os.environ["CONTINUITY_TEST_HOLD"])
while not _hold.exists():
    time.sleep(0.05)

from continuity.settings import *  # noqa: E402,F403
