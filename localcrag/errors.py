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


class FullTextFailed(LocalcragError):
    """The full-text index could not be searched: an error in text mode; in hybrid mode the
    search continues on vectors alone and says so (never an empty "no hits")."""
