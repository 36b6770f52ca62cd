"""Indexed documents with pages read neither from their text layer nor by OCR.

Ingest says so in a warning line (``files.NOT_READ``: a PDF page whose text layer is not
text, with OCR off or finding nothing on it); ``<table>.unread.json`` beside a local table
(a checksummed sidecar, like the document list) keeps those lines per document, so
``localcrag doctor`` can name the documents later. It is written with the file-stat cache
after each ingest, for the documents still indexed; a document indexed again replaces its
lines (none: its entry goes). Only a record of what ingest said: a missing or damaged file
names nothing, and nothing reads it for an answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from localcrag.ingest import sidecar
from localcrag.ingest.files import NOT_READ


def not_read(warnings: Iterable[str]) -> list[str]:
    """The lines of ``warnings`` that name pages nothing was read from."""
    return [w for w in warnings if f" {NOT_READ}: " in w]


class Unread:
    def __init__(self, store: Any) -> None:
        folder = store.location.folder
        self.path = Path(folder) / f"{store.name}.unread.json" if folder is not None else None
        data, _ = sidecar.read(self.path)
        self.entries: dict[str, list[str]] = (
            {str(k): [str(w) for w in v] for k, v in data.items() if isinstance(v, list)}
            if isinstance(data, dict)
            else {}
        )

    def record(self, source: str, warnings: Iterable[str]) -> None:
        """A document just indexed: its lines, or no entry."""
        lines = not_read(warnings)
        if lines:
            self.entries[source] = lines
        else:
            self.entries.pop(source, None)

    def save(self, keep: set[str]) -> None:
        """Write the entries of ``keep`` (the indexed sources); best effort, and no file at
        all while there is nothing to say."""
        if self.path is None:
            return
        kept = {s: w for s, w in self.entries.items() if s in keep}
        try:
            if kept:
                sidecar.write(self.path, kept)
            elif self.path.exists():
                self.path.unlink()
        except OSError:  # a record of warnings already printed: the index is unharmed
            pass
