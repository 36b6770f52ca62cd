"""User-facing errors: one line that names the thing and the fix, never a traceback."""

from __future__ import annotations


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


def describe_error(exc: BaseException) -> tuple[str, str | None]:
    """(one line for the user, the traceback only with LOCALCRAG_DEBUG=1): the one path by
    which the CLI and the TUI report a failure. A LocalcragError is its own line."""
    if isinstance(exc, LocalcragError):
        return str(exc), None
    line = f"unexpected error: {exc_summary(exc)}"
    if debug():
        import traceback

        return line, "".join(traceback.format_exception(exc))[-3000:]
    return f"{line} (set LOCALCRAG_DEBUG=1 for details)", None


class FullTextFailed(LocalcragError):
    """The full-text index could not be searched: an error in text mode; in hybrid mode the
    search continues on vectors alone and says so (never an empty "no hits")."""
