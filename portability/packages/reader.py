"""Reading a package and checking it against its manifest, before any record is parsed.

Everything wrong is collected into one report (a list of problems), so a refused package
says all of what is wrong at once, not one thing per attempt.
"""

from __future__ import annotations

import json
import tarfile
import zlib
from pathlib import Path

from foundation.errors import ErrorCode, ServiceError
from portability.files import NotReadable, TooLarge, open_regular, read_capped, read_regular
from portability.packages.format import (
    FILES,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    MAX_PACKAGE_BYTES,
    sha256,
)

ALLOWED = {MANIFEST, *FILES.values()}
MAX_PROBLEMS_SHOWN = 100
MAX_PROBLEMS_KEPT = 1000  # past this a report only counts; a hostile package has millions
# A package holds a handful of files; an archive of 300,000 entries cost 313 MB to list.
MAX_ENTRIES = 4 * len(ALLOWED)


class Problems(list):
    """What is wrong with a package: {"file", "line", "field", "message"} items (the first
    MAX_PROBLEMS_KEPT of them; `dropped` counts the rest)."""

    dropped = 0

    def add(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ):
        if len(self) >= MAX_PROBLEMS_KEPT:
            self.dropped += 1
            return
        self.append({"file": file, "line": line, "field": field, "message": message})

    def refuse_if_any(self, what: str = "The package") -> None:
        if self:
            raise refused(self, what)


def refused(problems: list[dict], what: str = "The package") -> ServiceError:
    first = problems[0]
    where = ":".join(str(part) for part in (first["file"], first["line"]) if part)
    total = len(problems) + getattr(problems, "dropped", 0)
    message = (
        f"{what} was refused, nothing was imported: {total} problem(s); first: "
        f"{where + ': ' if where else ''}{first['message']}"
    )
    shown = problems[:MAX_PROBLEMS_SHOWN]
    if total > len(shown):
        shown = [*shown, {"file": None, "line": None, "field": None,
                          "message": f"... and {total - len(shown)} more"}]  # fmt: skip
    return ServiceError(ErrorCode.VALIDATION_ERROR, message, shown)


def _normal(name: str) -> str:
    return name[2:] if name.startswith("./") else name


def read_files(source, *, max_bytes: int = MAX_PACKAGE_BYTES) -> dict[str, bytes]:
    """The files of a package: `source` is a directory, a `.tar.gz` path, or a binary file
    object holding a `.tar.gz`. Only the package's own file names are read, regular files
    only (links, devices and FIFOs are refused unread), at most MAX_ENTRIES archive entries,
    and never more than `max_bytes` uncompressed in all: a small archive of a gigabyte of
    zeros is refused as it is read, not after."""
    problems = Problems()
    if isinstance(source, (str, Path)) and Path(source).is_dir():
        files = _read_directory(Path(source), problems, max_bytes)
    else:
        files = _read_tar(source, problems, max_bytes)
    problems.refuse_if_any()
    return files


def _read_directory(folder: Path, problems: Problems, max_bytes: int) -> dict[str, bytes]:
    files, total = {}, 0
    for index, path in enumerate(sorted(folder.iterdir())):
        if index >= MAX_ENTRIES:
            problems.add(f"the package has more than {MAX_ENTRIES} entries")
            break
        if path.name not in ALLOWED:
            problems.add("unexpected file in the package", file=path.name)
            continue
        try:
            files[path.name] = read_regular(path, max_bytes - total)
        except NotReadable as error:
            problems.add(
                _too_large(max_bytes) if "larger" in str(error) else str(error), file=path.name
            )
            if "larger" in str(error):
                break
            continue
        total += len(files[path.name])
    return files


def _too_large(max_bytes: int) -> str:
    return f"the package is larger than {max_bytes:,} bytes uncompressed"


def _read_tar(source, problems: Problems, max_bytes: int) -> dict[str, bytes]:
    files, total = {}, 0
    try:
        if isinstance(source, (str, Path)):
            if not Path(source).exists():
                problems.add(f"no such file or directory: {source}")
                return files
            try:
                stream = open_regular(source)
            except NotReadable as error:
                problems.add(str(error), file=str(source))
                return files
        else:
            stream = source
        # Streaming mode ("r|gz"): members are read in order and not kept, so listing a
        # hostile archive costs nothing per entry.
        with tarfile.open(fileobj=stream, mode="r|gz") as tar:
            for index, member in enumerate(tar):
                name = _normal(member.name)
                if index >= MAX_ENTRIES:
                    problems.add(f"the package has more than {MAX_ENTRIES} entries")
                    break
                if name not in ALLOWED:
                    problems.add("unexpected file in the package", file=member.name)
                elif not member.isfile():
                    problems.add("not a regular file", file=name)
                elif name in files:
                    problems.add("the file appears twice", file=name)
                elif total + member.size > max_bytes:
                    problems.add(_too_large(max_bytes))
                    break
                else:
                    files[name] = read_capped(tar.extractfile(member), max_bytes - total)
                    total += len(files[name])
        if stream is not source:
            stream.close()
    except TooLarge:
        problems.add(_too_large(max_bytes))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        problems.add(f"not a readable .tar.gz package ({error.__class__.__name__}: {error})")
    return files


def check_manifest(files: dict[str, bytes]) -> dict:
    """The manifest, once format, version, file list, sizes, record counts and checksums all
    agree with the files. Raises the whole report otherwise."""
    problems = Problems()
    raw = files.get(MANIFEST)
    if raw is None:
        problems.add("the package has no manifest", file=MANIFEST)
        problems.refuse_if_any()
    try:
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ValueError("too large")
        manifest = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        manifest = None
    if not isinstance(manifest, dict):
        problems.add("the manifest is not a JSON object", file=MANIFEST)
        problems.refuse_if_any()

    if manifest.get("format") != FORMAT:
        problems.add(f"format must be {FORMAT!r}", file=MANIFEST, field="format")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        problems.add(
            f"unknown format version {version!r}; this Continuity reads version {FORMAT_VERSION}",
            file=MANIFEST, field="format_version",
        )  # fmt: skip
    problems.refuse_if_any()  # nothing else can be trusted in an unknown format

    listed = manifest.get("files")
    counts = manifest.get("counts")
    if not isinstance(listed, dict) or not isinstance(counts, dict):
        problems.add("the manifest needs 'files' and 'counts' objects", file=MANIFEST)
        problems.refuse_if_any()
    for name in sorted(set(listed) - set(FILES.values())):
        problems.add("the manifest lists an unknown file", file=MANIFEST, field=f"files.{name}")
    for kind, name in FILES.items():
        entry = listed.get(name)
        if not isinstance(entry, dict):
            problems.add("the manifest does not list this file", file=name)
            continue
        data = files.get(name)
        if data is None:
            problems.add("the file is missing from the package", file=name)
            continue
        if entry.get("sha256") != sha256(data):
            problems.add(
                "checksum mismatch: the file is not the one the manifest describes", file=name
            )
        if entry.get("bytes") != len(data):
            problems.add(
                f"size mismatch: {len(data)} bytes, the manifest says {entry.get('bytes')!r}",
                file=name,
            )
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        if entry.get("records") != lines or counts.get(kind) != lines:
            problems.add(
                f"record count mismatch: {lines} lines, the manifest says {entry.get('records')!r}",
                file=name,
            )
    problems.refuse_if_any()
    return manifest
