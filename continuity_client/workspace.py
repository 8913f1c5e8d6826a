"""Which project a workspace belongs to: its git remote as `host:owner/repo`, else its path.

Two clones of one repository then share memory, whatever their paths or remote URL forms.
Reads `.git/config` directly (no `git` subprocess: a hook must start fast) and follows the
`gitdir:` file that worktrees and submodules use. Standard library only.
"""

from __future__ import annotations

import configparser
import os
import re
from pathlib import Path

# Hosts with a short, well-known name; any other host keeps its own name.
HOST_NAMES = {"github.com": "github", "gitlab.com": "gitlab", "bitbucket.org": "bitbucket"}
# user@host:path — git's scp-like syntax (no scheme, a colon before the first slash).
_SCP_LIKE = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>(?!/).+)$")
_URL = re.compile(
    r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?:[^@/]*@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", re.I
)


def normalize_remote(url: str) -> str | None:
    """`git@github.com:owner/repo.git`, `https://github.com/owner/repo` and the like →
    `github:owner/repo`; None when `url` is not a remote (a local path, a file:// URL)."""
    url = url.strip()
    match = _URL.match(url)
    if match and match.group("scheme").lower() == "file":
        return None
    match = match or _SCP_LIKE.match(url)
    if not match or len(match.group("host")) < 2:  # "C:\\x" is a drive letter, not a host
        return None
    host = match.group("host").lower()
    path = match.group("path").replace("\\", "/").strip("/").lstrip("~").strip("/")
    path = re.sub(r"(?i)\.git/?$", "", path).strip("/")
    if not path:
        return None
    name = HOST_NAMES.get(host, host)
    # The well-known hosts treat owner and repository names case-insensitively.
    return f"{name}:{path.lower() if host in HOST_NAMES else path}"


def _git_dir(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        # Worktrees and submodules: ".git" is a file saying "gitdir: <path>".
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:") :].strip())
            return target if target.is_absolute() else (root / target).resolve()
    return None


def _config_of(git_dir: Path) -> Path | None:
    """A worktree's config lives in the main repository, named by its `commondir` file."""
    if (git_dir / "config").is_file():
        return git_dir / "config"
    common = git_dir / "commondir"
    if common.is_file():
        shared = Path(common.read_text(encoding="utf-8").strip())
        shared = shared if shared.is_absolute() else (git_dir / shared).resolve()
        if (shared / "config").is_file():
            return shared / "config"
    return None


def remote_url(config_path: Path) -> str | None:
    """`origin`'s URL, else the first remote's, from a git config file."""
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read(config_path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return None
    remotes = {}
    for section in parser.sections():
        match = re.match(r'^remote\s+"(.+)"$', section)
        if match and parser.has_option(section, "url"):
            remotes[match.group(1)] = parser.get(section, "url")
    if "origin" in remotes:
        return remotes["origin"]
    return next(iter(remotes.values()), None)


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds a `.git`."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def project_key_for(workspace: str | os.PathLike) -> str:
    """The project key of a local directory: its remote normalised, else its absolute path."""
    path = Path(os.path.abspath(os.path.expanduser(str(workspace))))
    root = find_root(path)
    if root is not None:
        git_dir = _git_dir(root)
        config = _config_of(git_dir) if git_dir else None
        url = remote_url(config) if config else None
        key = normalize_remote(url) if url else None
        if key:
            return key
        return str(root)
    return str(path)


def project_key_of(workspace: str) -> str:
    """A workspace as a client names it, as a project key, without touching this machine's
    files: a remote URL is normalised, a path is kept as a normalised absolute path. (The
    CLI resolves a local checkout to its remote before sending, with `project_key_for`.)"""
    workspace = workspace.strip()
    remote = normalize_remote(workspace)
    if remote:
        return remote
    return os.path.normpath(workspace) if workspace.startswith("/") else workspace
