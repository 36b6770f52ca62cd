"""Storage failures in the user's words.

LanceDB reports every storage problem as ``RuntimeError: lance error: ...`` with Rust
source paths. The store's public methods pass their exceptions through ``translate``,
which recognises those a user can act on (a damaged index, a folder that cannot be
written, a file that cannot be read, a file where a folder should be, a full disk) and
names the folder or file and the fix; anything else is left as it is.
"""

from __future__ import annotations

import errno
import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from localcrag.errors import LocalcragError


class IndexDamaged(LocalcragError):
    """A data, manifest or index file of the table is missing or unreadable."""


class IndexNotWritable(LocalcragError):
    """The index folder is read-only (or not ours): reads still work, writes do not."""


class DiskFull(LocalcragError):
    """The disk holding the index is full."""


class IndexUnreadable(LocalcragError):
    """A file of the index cannot be read (permission denied): searching and asking fail too."""


class NotAFolder(LocalcragError):
    """A file stands where the index folder, or a table's folder, should be."""


class BadRows(ValueError):
    """Rows that read back invalid (a vector of the wrong length, not finite, not unit length)."""


class IndexUnreachable(LocalcragError):
    """A shared index (index_uri) cannot be opened: no answer, no bucket, or no access."""


_FULL = re.compile(r"No space left on device|os error 28|ENOSPC|Disk quota exceeded|os error 122")
_READ_ONLY = re.compile(
    r"Read-only file system|os error 30|Permission denied|os error 13|"
    r"Operation not permitted|os error 1\b"
)
_DAMAGED = re.compile(
    r"Not found|not found|corrupt|Corrupt|Invalid (file|data|manifest)|"
    r"unexpected end of file|UnexpectedEof|failed to fill whole buffer|"
    r"Invalid user input: .*version|Buffer too small|protobuf|Protobuf|file size is too small|"
    r"Invalid range|not appear to be a Lance file|Parser error|does not exist in schema"
)
_STORE = re.compile(
    r'store: "\w+"|NoSuchBucket|AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|'
    r"RetryError|Connection refused|dns error|error sending request|credential",
    re.I,
)
_DENIED = re.compile(r"Permission denied|os error 13|Operation not permitted|os error 1\b")
_NOT_DIR = re.compile(r"Not a directory|os error 20\b")
_LANCE_PATH = re.compile(r"/?[^\s,:'\"()]+\.lance(?:/[^\s,:'\"()]+)?")
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
_DENIED_ERRNOS = {errno.EACCES, errno.EPERM}
# the store's methods that write; a permission error in any other is a file it cannot read
WRITES = frozenset({"replace_files", "remove", "remove_from_other_tables", "ensure_fts"})


def not_writable(folder: Path | str) -> IndexNotWritable:
    return IndexNotWritable(
        f"cannot write the index in {folder}: the folder is read-only",
        "make it writable (chmod -R u+w), or point LOCALCRAG_HOME at a "
        "writable folder; searching and asking still work",
    )


def disk_full(folder: Path | str, done: str = "") -> DiskFull:
    return DiskFull(
        f"the disk holding {folder} is full{done}",
        "free some space, then run the same ingest again: finished documents are kept "
        "and only the rest is indexed",
    )


def unreadable(path: Path | str) -> IndexUnreadable:
    return IndexUnreadable(
        f"cannot read {path}: permission denied (searching, asking and repairs need every "
        "file of the index)",
        "give your user read and write access to the index folder (chmod -R u+rwX, or chown "
        "it), or run localcrag as the user who owns it",
    )


def not_a_folder(path: Path | str) -> NotAFolder:
    return NotAFolder(
        f"{path} is a file where a folder of the index should be",
        "move that file away (the next ingest builds the index again), or point "
        "LOCALCRAG_HOME at another folder",
    )


def in_the_way(folder: Path | str, name: str | None = None) -> Path | None:
    """The file standing where the index folder, a folder above it, or the table's folder
    (``<name>.lance``) should be; None when there is none (or the index is not local)."""
    if "://" in str(folder):
        return None
    root = Path(folder)
    for p in [*reversed(root.parents), root, *([root / f"{name}.lance"] if name else [])]:
        if p.exists() and not p.is_dir():
            return p
    return None


def named_file(exc: BaseException, folder: Path | str) -> Path | str:
    """The file an error names (an OSError's filename, a path in lance's text), else the
    folder."""
    if isinstance(getattr(exc, "filename", None), str):
        return str(exc.filename)  # type: ignore[attr-defined]
    for m in _LANCE_PATH.finditer(str(exc)):
        found = m.group(0)
        tail = found.lstrip("/")
        base = str(folder).lstrip("/")
        if tail.startswith(base):  # object_store spells a local path without its leading /
            return "/" + tail if str(folder).startswith("/") else tail
    return folder


def first_unreadable(folder: Path | str, limit: int = 100_000) -> Path | str:
    """The first file or folder under ``folder`` that this user may not open (lance's error
    does not always say which), else ``folder`` itself; at most ``limit`` entries looked at."""
    if "://" in str(folder):
        return folder
    import os

    seen = 0
    for root, dirs, files in os.walk(folder):  # a folder it cannot list is found at its parent
        for name in sorted(dirs) + sorted(files):
            p = Path(root) / name
            if not os.access(p, os.R_OK | (os.X_OK if name in dirs else 0)):
                return p
            seen += 1
        if seen > limit:
            break
    return folder


def damaged(folder: Path | str, what: str = "a data file is missing or unreadable") -> IndexDamaged:
    return IndexDamaged(
        f"the index in {folder} is damaged: {what}", "run `localcrag doctor --repair`"
    )


def unreachable(uri: str, text: str) -> IndexUnreachable:
    why = (
        "the bucket does not exist"
        if "NoSuchBucket" in text
        else "access denied (check the credentials)"
        if re.search(
            r"AccessDenied|InvalidAccessKeyId|Signature"
            r"DoesNotMatch|status: 40[13]|credential",
            text,
            re.I,
        )
        else "the object store did not answer"
    )
    return IndexUnreachable(
        f"cannot open the shared index {uri}: {why}",
        "check index_uri and index_storage_options (endpoint, region, allow_http) "
        "and the AWS_* variables in the environment (`localcrag config`)",
    )


def translate(
    exc: BaseException, folder: Path | str, reading: bool = False, name: str | None = None
) -> LocalcragError | None:
    """The user-facing error for a storage exception, or None when it is not one of ours
    (``folder`` is the index folder, or the URI of a shared index; ``reading``: the call
    only reads, so a permission error is an unreadable file, not a read-only folder;
    ``name``: the table, whose folder may be the file in the way)."""
    if isinstance(exc, LocalcragError):
        return exc
    if isinstance(exc, BadRows):
        return damaged(folder, str(exc))
    code = getattr(exc, "errno", None)
    text = str(exc)
    if "://" in str(folder) and _STORE.search(text):
        return unreachable(str(folder), text)
    if code in _FULL_ERRNOS or _FULL.search(text):
        return disk_full(folder)
    if code == errno.ENOTDIR or _NOT_DIR.search(text):
        return not_a_folder(in_the_way(folder, name) or named_file(exc, folder))
    if code == errno.EEXIST and (blocking := in_the_way(folder, name)) is not None:
        return not_a_folder(blocking)  # creating the folder found a file there
    if reading and (code in _DENIED_ERRNOS or _DENIED.search(text)):
        where = named_file(exc, folder)
        return unreadable(first_unreadable(folder) if where == folder else where)
    if code in _READ_ONLY_ERRNOS or _READ_ONLY.search(text):
        return not_writable(folder)
    lance = "lance" in text.lower() or isinstance(exc, (OSError, RuntimeError))
    if lance and (isinstance(exc, FileNotFoundError) or _DAMAGED.search(text)):
        return damaged(folder)
    return None


class Guarded(Protocol):
    """What ``guarded`` reads of the object whose methods it wraps (the store)."""

    path: Path | str  # its index folder (or object-store URI)
    name: str  # its table

    def reopen(self) -> None: ...


def guarded(method: Callable) -> Callable:
    """Wrap a store method so storage exceptions reach the caller as one of the errors above.
    A read that finds files missing is retried once on the newest version first: a handle
    opened before another process compacted the index may point at files it removed."""

    @functools.wraps(method)
    def call(self: Guarded, *args: Any, **kwargs: Any) -> Any:
        for attempt in (0, 1):
            try:
                return method(self, *args, **kwargs)
            except (OSError, RuntimeError, ValueError) as exc:
                mapped = translate(exc, self.path, method.__name__ not in WRITES, self.name)
                if mapped is None or isinstance(exc, LocalcragError):  # ours already
                    raise
                if attempt == 0 and isinstance(mapped, IndexDamaged):
                    self.reopen()
                    continue
                raise mapped from exc

    return call
