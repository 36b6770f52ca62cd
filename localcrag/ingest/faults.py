"""Storage failures in the user's words.

LanceDB reports every storage problem as ``RuntimeError: lance error: ...`` with Rust
source paths. The store's public methods pass their exceptions through ``translate``,
which recognises the three a user can act on (a damaged index, a folder that cannot be
written, a full disk) and names the folder and the fix; anything else is left as it is.
"""

from __future__ import annotations

import errno
import functools
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError


class IndexDamaged(LocalcragError):
    """A data, manifest or index file of the table is missing or unreadable."""


class IndexNotWritable(LocalcragError):
    """The index folder is read-only (or not ours): reads still work, writes do not."""


class DiskFull(LocalcragError):
    """The disk holding the index is full."""


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
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}


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


def translate(exc: BaseException, folder: Path | str) -> LocalcragError | None:
    """The user-facing error for a storage exception, or None when it is not one of ours
    (``folder`` is the index folder, or the URI of a shared index)."""
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
    if code in _READ_ONLY_ERRNOS or _READ_ONLY.search(text):
        return not_writable(folder)
    lance = "lance" in text.lower() or isinstance(exc, (OSError, RuntimeError))
    if lance and (isinstance(exc, FileNotFoundError) or _DAMAGED.search(text)):
        return damaged(folder)
    return None


def guarded(method: Callable) -> Callable:
    """Wrap a store method so storage exceptions reach the caller as one of the errors above.
    A read that finds files missing is retried once on the newest version first: a handle
    opened before another process compacted the index may point at files it removed."""

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        for attempt in (0, 1):
            try:
                return method(self, *args, **kwargs)
            except (OSError, RuntimeError, ValueError) as exc:
                mapped = translate(exc, self.path)
                if mapped is None or isinstance(exc, LocalcragError):  # ours already
                    raise
                if attempt == 0 and isinstance(mapped, IndexDamaged):
                    self.reopen()
                    continue
                raise mapped from exc

    return call


def guard_methods(cls: type, names: Iterable[str]) -> None:
    """Apply ``guarded`` to the named public methods of ``cls`` (the store's whole surface)."""
    for name in names:
        setattr(cls, name, guarded(getattr(cls, name)))
