"""Reading a package and checking it against its manifest, before any record is parsed.

Everything wrong is collected into one report (a list of problems), so a refused package
says all of what is wrong at once, not one thing per attempt.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from foundation.errors import ErrorCode, ServiceError
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


class Problems(list):
    """What is wrong with a package: {"file", "line", "field", "message"} items."""

    def add(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ):
        self.append({"file": file, "line": line, "field": field, "message": message})

    def refuse_if_any(self, what: str = "The package") -> None:
        if self:
            raise refused(self, what)


def refused(problems: list[dict], what: str = "The package") -> ServiceError:
    first = problems[0]
    where = ":".join(str(part) for part in (first["file"], first["line"]) if part)
    message = (
        f"{what} was refused, nothing was imported: {len(problems)} problem(s); first: "
        f"{where + ': ' if where else ''}{first['message']}"
    )
    shown = problems[:MAX_PROBLEMS_SHOWN]
    if len(problems) > len(shown):
        shown = [*shown, {"file": None, "line": None, "field": None,
                          "message": f"... and {len(problems) - len(shown)} more"}]  # fmt: skip
    return ServiceError(ErrorCode.VALIDATION_ERROR, message, shown)


def _normal(name: str) -> str:
    return name[2:] if name.startswith("./") else name


def read_files(source) -> dict[str, bytes]:
    """The files of a package: `source` is a directory, a `.tar.gz` path, or a binary file
    object holding a `.tar.gz`. Only the package's own file names are read; anything else,
    links included, is refused, and the whole is bounded in size."""
    problems = Problems()
    if isinstance(source, (str, Path)) and Path(source).is_dir():
        files = _read_directory(Path(source), problems)
    else:
        files = _read_tar(source, problems)
    problems.refuse_if_any()
    return files


def _read_directory(folder: Path, problems: Problems) -> dict[str, bytes]:
    files, total = {}, 0
    for path in sorted(folder.iterdir()):
        if path.name not in ALLOWED:
            problems.add("unexpected file in the package", file=path.name)
        elif path.is_symlink() or not path.is_file():
            problems.add("not a regular file", file=path.name)
        else:
            total += path.stat().st_size
            if total > MAX_PACKAGE_BYTES:
                problems.add(f"the package is larger than {MAX_PACKAGE_BYTES:,} bytes")
                break
            files[path.name] = path.read_bytes()
    return files


def _read_tar(source, problems: Problems) -> dict[str, bytes]:
    files, total = {}, 0
    try:
        if isinstance(source, (str, Path)):
            if not Path(source).exists():
                problems.add(f"no such file or directory: {source}")
                return files
            tar = tarfile.open(source, mode="r:gz")
        else:
            tar = tarfile.open(fileobj=source, mode="r:gz")
        with tar:
            for member in tar:
                name = _normal(member.name)
                if name not in ALLOWED:
                    problems.add("unexpected file in the package", file=member.name)
                elif not member.isfile():
                    problems.add("not a regular file", file=name)
                elif name in files:
                    problems.add("the file appears twice", file=name)
                else:
                    total += member.size
                    if total > MAX_PACKAGE_BYTES:
                        problems.add(f"the package is larger than {MAX_PACKAGE_BYTES:,} bytes")
                        break
                    files[name] = tar.extractfile(member).read()
    except (tarfile.TarError, EOFError, OSError) as error:
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
