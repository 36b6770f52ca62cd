"""Which files an ingest (or a watched folder) covers, and their content hashes.

Folders are walked in sorted order, hidden entries and unsupported types skipped; a path
that cannot be read (a missing permission anywhere above it) is one line, never an abort.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from localcrag.errors import BadDocument
from localcrag.ingest.files import bad, broken_link
from localcrag.ingest.parse import SUPPORTED, _check_path


def wanted(path: Path) -> bool:
    """A file a folder walk (or the watcher) picks up: supported type, no hidden part."""
    return path.suffix.lower() in SUPPORTED and not any(_hidden(p) for p in path.parts)


def _hidden(name: str) -> bool:
    return name.startswith(".")


def iter_files(
    paths: Sequence[Path], skipped: list[Path] | None = None
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Expand files and folders into supported files (absolute, resolved, deduplicated).

    Folders are walked recursively in sorted order, skipping hidden entries and skipping
    unsupported types (collected in ``skipped`` when given, so a report can count them); explicit missing/unsupported paths and folders without
    any supported file are reported as (path, one-line message).
    """
    files: list[Path] = []
    errors: list[tuple[Path, str]] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        r = p.resolve()
        if r not in seen:
            seen.add(r)
            files.append(r)

    for given in map(Path, paths):
        try:
            is_dir = given.is_dir()
        except OSError as exc:  # inside a folder we may not enter: one line, not an abort
            errors.append(
                (
                    given,
                    str(
                        bad(
                            given,
                            f"cannot read ({exc.strerror or exc})",
                            "check the permissions of the folders above it",
                        )
                    ),
                )
            )
            continue
        if is_dir:
            found = 0
            walk_errors: list[OSError] = []
            for root, dirs, names in os.walk(given, onerror=walk_errors.append):
                dirs[:] = sorted(d for d in dirs if not _hidden(d))
                for name in sorted(names):
                    p = Path(root) / name
                    if not _hidden(name) and p.suffix.lower() in SUPPORTED and p.is_file():
                        found += 1
                        add(p)
                    elif skipped is not None and not _hidden(name) and p.is_file():
                        skipped.append(p)  # counted for the report, not an error
                    elif (
                        not _hidden(name)
                        and (link := broken_link(p)) is not None
                        and ("loop" in str(link) or p.suffix.lower() in SUPPORTED)
                    ):
                        errors.append((p, str(link)))  # a loop, or a document whose target is gone
            for err in walk_errors:
                where = Path(err.filename or given)
                errors.append((where, str(bad(where, f"cannot read folder ({err.strerror})"))))
            if not found and not walk_errors:
                hint = "supported: " + ", ".join(sorted(SUPPORTED))
                errors.append((given, str(bad(given, "folder has no supported files", hint))))
            continue
        try:
            _check_path(given)
        except OSError as exc:
            errors.append((given, str(bad(given, f"cannot read ({exc.strerror or exc})"))))
            continue
        except BadDocument as exc:
            errors.append((given, str(exc)))
            continue
        add(given)
    return files, errors


def content_hash(path: Path) -> str:
    """sha256 of the file's bytes, streamed: detects changed files without keeping them."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except PermissionError:
        raise bad(path, "permission denied", "check the file's permissions") from None
    return h.hexdigest()
