"""Where the browser tests find Chromium, and what happens when there is none.

CONTINUITY_CHROMIUM names the browser (a path, or a command on PATH); without it the
usual command names are tried on PATH. No Chromium: the browser tests are deselected and
the run says so in its header and its summary. CI installs Chromium and sets
CONTINUITY_REQUIRE_BROWSER=1, which turns "no Chromium" into an error, so a browser step
can never pass without driving a browser.
"""

from __future__ import annotations

import os
import shutil

COMMANDS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HOW_TO_GET_ONE = "install chromium or set CONTINUITY_CHROMIUM"


def chromium_path() -> str | None:
    """The Chromium executable to drive, or None when there is none."""
    configured = os.environ.get("CONTINUITY_CHROMIUM", "").strip()
    if configured:
        return shutil.which(configured)
    return next(filter(None, map(shutil.which, COMMANDS)), None)


def why_missing() -> str:
    configured = os.environ.get("CONTINUITY_CHROMIUM", "").strip()
    if configured:
        return f"CONTINUITY_CHROMIUM={configured} is not an executable"
    return f"no Chromium found ({HOW_TO_GET_ONE})"


def browser_required() -> bool:
    return os.environ.get("CONTINUITY_REQUIRE_BROWSER", "") not in ("", "0")
