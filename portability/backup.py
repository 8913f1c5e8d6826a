"""Backup and restore of the whole instance (`manage.py backup` / `manage.py restore`).

SQLite (lite profile): a backup is a consistent copy of the live database file, taken
online with SQLite's backup API while the server keeps running, and integrity-checked. A
restore checks the file (integrity, a Continuity schema this code knows), copies it next to
the live database, keeps the live database as a rollback file, and switches to the copy with
one atomic rename. Stop `serve` (web and workers) before restoring: a process that keeps the
old file open would keep writing to it.

PostgreSQL (team profile): a backup is a bundle of memory packages, one per user who has
data, and a restore replaces each of those users' memory with their package, all in one
transaction. Users, tokens and sessions are not part of it (docs/packages.md).
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import tarfile
import tempfile
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError
from handoff.models import HandoffCapsule
from memories.models import IdempotencyRecord, Memory, MemoryEvent, MemoryLink
from portability.packages import package_contents, package_import, write_tar
from portability.packages.format import instance_id
from portability.packages.reader import check_manifest, read_files
from portability.packages.records import parse_records

BUNDLE_FORMAT = "continuity.backup-bundle"
BUNDLE_VERSION = 1
SQLITE_HEADER = b"SQLite format 3\x00"
REQUIRED_TABLES = ("django_migrations", "memories_memory", "auth_user")


def refuse(message: str, details: list | None = None) -> ServiceError:
    return ServiceError(ErrorCode.VALIDATION_ERROR, message, details)


def _stamp() -> str:
    return timezone.now().strftime("%Y%m%d-%H%M%S")


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _integrity(conn: sqlite3.Connection) -> list[str]:
    rows = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
    return [] if rows == ["ok"] else rows


def _copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy through SQLite's online backup API (readers and writers of the
    source keep going; the copy is one snapshot)."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(target)
        try:
            with dst:
                src.backup(dst, pages=1024)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dst.close()
    finally:
        src.close()


def live_sqlite_path() -> Path:
    return Path(connection.settings_dict["NAME"])


# --- SQLite ---------------------------------------------------------------------------------


def sqlite_backup(*, output: Path) -> dict:
    """Copy the live database to `output` (appearing whole or not at all); returns what was
    copied. Refuses to overwrite the live database itself."""
    live = live_sqlite_path()
    output = Path(output).resolve()
    if output == live.resolve():
        raise refuse("The backup cannot be written over the live database.")
    output.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=output.parent, prefix=".backup-", suffix=".sqlite3")
    os.close(handle)
    temporary = Path(temporary)
    try:
        _copy_sqlite(live, temporary)
        check = sqlite3.connect(temporary)
        try:
            problems = _integrity(check)
            memories = check.execute("SELECT count(*) FROM memories_memory").fetchone()[0]
        finally:
            check.close()
        if problems:
            raise refuse(
                "The copy failed its integrity check; the live database may be damaged.",
                problems[:20],
            )
        _fsync(temporary)
        os.chmod(temporary, 0o600)
        os.replace(temporary, output)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return {
        "vendor": "sqlite",
        "output": str(output),
        "bytes": output.stat().st_size,
        "memories": memories,
    }


def check_sqlite_backup(path: Path) -> dict:
    """Everything a restore needs to trust the file, or a refusal saying what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise refuse(f"No such backup file: {path}.")
    with open(path, "rb") as handle:
        if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise refuse(
                f"{path} is not a SQLite database (a PostgreSQL backup bundle restores on PostgreSQL only)."
            )
    try:
        return _check_sqlite_file(path)
    except sqlite3.DatabaseError as error:
        raise refuse(f"{path} is not a readable SQLite database ({error}).") from None


def _check_sqlite_file(path: Path) -> dict:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = _integrity(conn)
        if problems:
            raise refuse(f"{path} fails SQLite's integrity check.", problems[:20])
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        missing = [table for table in REQUIRED_TABLES if table not in tables]
        if missing:
            raise refuse(
                f"{path} is not a Continuity database (missing tables: {', '.join(missing)})."
            )
        applied = set(conn.execute("SELECT app, name FROM django_migrations").fetchall())
        memories = conn.execute("SELECT count(*) FROM memories_memory").fetchone()[0]
    finally:
        conn.close()
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    ours = {app for app, _ in known}
    unknown = sorted(
        f"{app}.{name}" for app, name in applied if app in ours and (app, name) not in known
    )
    if unknown:
        raise refuse(
            f"{path} comes from a newer Continuity (migrations this version does not know: "
            f"{', '.join(unknown[:5])}). Upgrade first.",
        )
    return {"memories": memories, "pending_migrations": len(known - applied)}


def sqlite_restore(*, backup: Path) -> dict:
    """Switch the live database to a checked copy of `backup`, keeping the current one as a
    rollback file beside it. Returns {"restored", "rollback", "memories"}."""
    info = check_sqlite_backup(backup)
    live = live_sqlite_path()
    stamp = _stamp()
    incoming = live.with_name(f"{live.name}.restore-{stamp}.tmp")
    rollback = live.with_name(f"{live.name}.before-restore-{stamp}")
    try:
        _copy_sqlite(Path(backup), incoming)
        check = sqlite3.connect(incoming)
        try:
            problems = _integrity(check)
        finally:
            check.close()
        if problems:
            raise refuse(
                "The copy of the backup failed its integrity check; nothing was changed.",
                problems[:20],
            )
        _fsync(incoming)
        connections.close_all()
        if live.exists():
            # The rollback point is a consistent copy, WAL included, not a raw file copy.
            _copy_sqlite(live, rollback)
            _fsync(rollback)
            conn = sqlite3.connect(live)
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()
        os.replace(incoming, live)
        for suffix in ("-wal", "-shm"):
            # The old database's write-ahead log must never be applied to the new file.
            Path(f"{live}{suffix}").unlink(missing_ok=True)
        directory = os.open(live.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    finally:
        incoming.unlink(missing_ok=True)
    return {"restored": str(live), "rollback": str(rollback) if rollback.exists() else None, **info}


# --- PostgreSQL -------------------------------------------------------------------------------


def _owners_with_data():
    users = get_user_model().objects.order_by("pk")
    for user in users.iterator():
        if (
            Memory.objects.filter(owner=user).exists()
            or MemoryEvent.objects.filter(owner=user).exists()
            or HandoffCapsule.objects.filter(owner=user).exists()
        ):
            yield user


def bundle_backup(*, output: Path) -> dict:
    """A tar.gz of one memory package per user with data, plus `backup.json` naming them.
    The whole bundle is read in one transaction (REPEATABLE READ semantics per package)."""
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    entries, packages = [], {}
    with transaction.atomic():
        for user in _owners_with_data():
            name = f"packages/{user.pk}.tar.gz"
            buffer = io.BytesIO()
            write_tar(package_contents(actor=Actor.owner(user)), buffer)
            packages[name] = buffer.getvalue()
            entries.append({"username": user.get_username(), "file": name})
    manifest = {
        "format": BUNDLE_FORMAT, "format_version": BUNDLE_VERSION, "vendor": connection.vendor,
        "created_at": timezone.now().isoformat(), "source_instance": instance_id(), "users": entries,
    }  # fmt: skip
    handle, temporary = tempfile.mkstemp(dir=output.parent, prefix=".backup-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream, tarfile.open(fileobj=stream, mode="w:gz") as tar:
            for name, data in [
                ("backup.json", json.dumps(manifest, indent=2).encode()),
                *packages.items(),
            ]:
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o600
                tar.addfile(info, io.BytesIO(data))
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return {
        "vendor": connection.vendor,
        "output": str(output),
        "bytes": output.stat().st_size,
        "users": len(entries),
    }


def _read_bundle(path: Path) -> tuple[dict, dict[str, bytes]]:
    try:
        with tarfile.open(path, "r:gz") as tar:
            files = {}
            for member in tar:
                if not member.isfile():
                    raise refuse(f"{path}: unexpected entry {member.name!r} in the bundle.")
                files[member.name] = tar.extractfile(member).read()
    except (tarfile.TarError, OSError, EOFError) as error:
        raise refuse(f"{path} is not a readable backup bundle ({error}).") from None
    try:
        manifest = json.loads(files["backup.json"])
    except (KeyError, ValueError):
        raise refuse(f"{path} has no readable backup.json.") from None
    if manifest.get("format") != BUNDLE_FORMAT or manifest.get("format_version") != BUNDLE_VERSION:
        raise refuse(
            f"{path} is not a backup bundle of a version this Continuity reads ({BUNDLE_VERSION})."
        )
    return manifest, files


def bundle_restore(*, backup: Path) -> dict:
    """Replace the memory of every user named in the bundle with their package. Every
    package and every user is checked before anything changes; then one transaction."""
    manifest, files = _read_bundle(Path(backup))
    users = get_user_model().objects
    plan, problems = [], []
    for entry in manifest.get("users", []):
        user = users.filter(username=entry.get("username")).first()
        if user is None:
            problems.append(
                {"field": "users", "message": f"no user named {entry.get('username')!r} here"}
            )
            continue
        if entry.get("file") not in files:
            problems.append(
                {"field": "users", "message": f"the bundle lacks {entry.get('file')!r}"}
            )
            continue
        try:
            package = read_files(io.BytesIO(files[entry["file"]]))
            check_manifest(package)
            parse_records(package)
        except ServiceError as error:
            problems.append({"field": entry["username"], "message": error.message})
            continue
        plan.append((user, files[entry["file"]]))
    if problems:
        raise refuse("The backup was refused; nothing was restored.", problems)
    restored = {}
    with transaction.atomic():
        for user, data in plan:
            MemoryLink.objects.filter(owner=user).delete()
            Memory.objects.filter(owner=user).update(supersedes=None)
            Memory.objects.filter(owner=user).delete()
            MemoryEvent.objects.filter(owner=user).delete()
            HandoffCapsule.objects.filter(owner=user).delete()
            IdempotencyRecord.objects.filter(owner=user).delete()
            report = package_import(actor=Actor.owner(user), source=io.BytesIO(data))
            restored[user.get_username()] = report.created
    return {"vendor": connection.vendor, "users": restored}
