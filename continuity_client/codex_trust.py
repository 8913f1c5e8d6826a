"""Has Codex trusted Continuity's hooks? Codex runs a hook from hooks.json only once the user
trusted it, and `codex exec` skips an untrusted one without a word, so installed is not
enough.

Codex records trust in `$CODEX_HOME/config.toml`, one table per handler:

    [hooks.state."<hooks.json path>:<event>:<group index>:<handler index>"]
    trusted_hash = "sha256:..."

with the event in snake case (`stop`, `user_prompt_submit`) and the hash Codex's own digest
of the handler's definition. Continuity does not compute that digest (it is Codex's
internal, and integrations that copy it break when it changes); it reads whether a record
stands at each of its handlers' positions. When `setup` changes a handler (an install moved,
so the command changed), the records standing at its positions were made for the old
definition: setup notes their hashes in `$CONTINUITY_STATE_DIR/codex-stale-trust.json`, and
a record still carrying one of them means Codex no longer trusts the hook. Trusting again
writes a new hash, which is not noted, so the hook reads as trusted again.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

from continuity_client import config

WHAT_TO_DO = (
    "start `codex` in a terminal, open /hooks, review and trust Continuity's Stop and "
    "UserPromptSubmit hooks (one `codex exec` run can skip the check with "
    "--dangerously-bypass-hook-trust)"
)
OR_LET_SETUP = "or have setup record it through Codex: `continuity setup codex ... --trust`"


def codex_config_path() -> Path:
    return config.codex_hooks_path().with_name("config.toml")


def stale_path() -> Path:
    return config.state_dir() / "codex-stale-trust.json"


def snake(event: str) -> str:
    """`UserPromptSubmit` → `user_prompt_submit`, the spelling of Codex's trust keys."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def positions(hooks: dict, events, is_ours) -> dict[str, list[str]]:
    """Per event, the trust keys of Continuity's handlers in a hooks.json's `hooks` object."""
    path = config.codex_hooks_path()
    found: dict[str, list[str]] = {}
    for event in events:
        groups = hooks.get(event) if isinstance(hooks.get(event), list) else []
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if is_ours(handler):
                    found.setdefault(event, []).append(f"{path}:{snake(event)}:{g}:{h}")
    return found


def _records() -> dict:
    """`hooks.state` of Codex's config.toml; {} without one. Raises ValueError if unreadable."""
    path = codex_config_path()
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path} is not readable TOML ({error})") from None
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return state if isinstance(state, dict) else {}


def _record_for(records: dict, key: str) -> dict | None:
    # Codex may spell the hooks.json path resolved (symlinks followed); accept both.
    path, _, rest = key.partition(":")
    for candidate in (key, f"{os.path.realpath(path)}:{rest}"):
        if isinstance(records.get(candidate), dict):
            return records[candidate]
    return None


def _stale() -> set[str]:
    try:
        noted = json.loads(stale_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(value) for value in noted} if isinstance(noted, list) else set()


def note_stale(keys: list[str]) -> None:
    """Before setup rewrites handlers at `keys`: the hashes standing there no longer apply."""
    try:
        records = _records()
    except ValueError:
        return
    hashes = {
        str(record.get("trusted_hash"))
        for key in keys
        if (record := _record_for(records, key)) and record.get("trusted_hash")
    }
    if hashes:
        config.atomic_write(stale_path(), json.dumps(sorted(_stale() | hashes)) + "\n")


def trust(found: dict[str, list[str]]) -> dict[str, str]:
    """Per event: `trusted`, `untrusted` (no record), `changed` (a record made for a previous
    definition) or `disabled` (the user turned it off in /hooks). Raises ValueError when
    Codex's config.toml cannot be read."""
    records, stale = _records(), _stale()
    states = {}
    for event, keys in found.items():
        state = "trusted"
        for key in keys:
            record = _record_for(records, key)
            if record is not None and record.get("enabled") is False:
                state = "disabled"
            elif record is None or not record.get("trusted_hash"):
                state = "untrusted"
            elif str(record["trusted_hash"]) in stale:
                state = "changed"
            if state != "trusted":
                break
        states[event] = state
    return states
