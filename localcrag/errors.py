"""User-facing errors: one line that names the thing and the fix, never a traceback."""

from __future__ import annotations

import errno


class LocalcragError(Exception):
    """An error the user can act on. ``str()`` is the one line we print."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class BadDocument(LocalcragError):
    """A document that cannot be read: corrupt, encrypted, empty, scanned, unsupported."""


class ModelMissing(LocalcragError):
    """A model file or folder is absent or unreadable."""


class EmptyIndex(LocalcragError):
    """Nothing has been ingested yet."""


class BadQuestion(LocalcragError):
    """An empty or unusable question."""


def debug() -> bool:
    """LOCALCRAG_DEBUG=1: show tracebacks (CLI) and error details (TUI)."""
    import os

    return os.environ.get("LOCALCRAG_DEBUG", "") not in ("", "0")


def exc_summary(exc: BaseException, limit: int = 300) -> str:
    """ "KeyError: 'chunk'": the type and the message's first line, at most ``limit`` characters."""
    msg = " ".join((str(exc).strip().splitlines() or [""])[0].split())
    return f"{type(exc).__name__}: {msg}"[:limit] if msg else type(exc).__name__


_FIX_ACCESS = "fix its permissions (chmod, chown), or run localcrag as the user who owns it"
# errno -> (what happened, the fix), for an OS error no layer below put in words
_OS_LINES = {
    errno.ENOSPC: ("the disk is full", "free some space, then run the same command again"),
    errno.EDQUOT: ("the disk quota is used up", "free some space, then run the same command again"),
    errno.EACCES: ("permission denied", _FIX_ACCESS),
    errno.EPERM: ("operation not permitted", _FIX_ACCESS),
    errno.EROFS: ("the file system is read-only", "point LOCALCRAG_HOME at a writable folder"),
    errno.ENOTDIR: ("a file stands where a folder should be", "move that file away"),
    errno.EISDIR: ("a folder stands where a file should be", "move that folder away"),
}


def os_error_line(exc: BaseException) -> LocalcragError | None:
    """One line for an OS error (the exception, its cause or context) that reached the top
    unexplained: what happened to which file, and the fix; None for any other error."""
    seen: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in seen and len(seen) < 8:
        seen.append(e)
        if isinstance(e, OSError) and e.errno in _OS_LINES:
            what, fix = _OS_LINES[e.errno]
            where = f"{e.filename}: " if e.filename else ""
            return LocalcragError(f"{where}{what}", fix)
        if "No space left on device" in str(e) or "Disk quota exceeded" in str(e):
            return LocalcragError(_OS_LINES[errno.ENOSPC][0], _OS_LINES[errno.ENOSPC][1])
        e = e.__cause__ or e.__context__
    return None


def describe_error(exc: BaseException) -> tuple[str, str | None]:
    """(one line for the user, the traceback only with LOCALCRAG_DEBUG=1): the one path by
    which the CLI and the TUI report a failure. A LocalcragError is its own line, and so is
    an OS error with a known cause (a full disk, permission denied, a file for a folder)."""
    if isinstance(exc, LocalcragError):
        return str(exc), None
    if (known := os_error_line(exc)) is not None and not debug():
        return str(known), None
    line = f"unexpected error: {exc_summary(exc)}"
    if debug():
        import traceback

        return line, "".join(traceback.format_exception(exc))[-3000:]
    return f"{line} (set LOCALCRAG_DEBUG=1 for details)", None


class FullTextFailed(LocalcragError):
    """The full-text index could not be searched: an error in text mode; in hybrid mode the
    search continues on vectors alone and says so (never an empty "no hits")."""
