"""Documents the user removed and wants kept out: a folder's ingest or a watched folder
does not add them back.

``localcrag remove FILE`` (or Remove in the app) of a file that still exists records it in
``excluded.json`` beside the index (a checksummed sidecar). An ingest of a folder, a
watched folder's catch-up and its bursts skip those files and say how many they skipped;
an ingest that names the file itself takes it back in and forgets the exclusion.
``localcrag sources`` lists them. An index on object storage keeps none (no file beside it).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from localcrag.ingest import sidecar

NAME = "excluded.json"


class Exclusions:
    def __init__(self, folder: str | Path | None) -> None:
        self.path = Path(folder) / NAME if folder is not None else None
        data, _ = sidecar.read(self.path)
        self.sources: set[str] = {str(s) for s in data} if isinstance(data, list) else set()

    def __contains__(self, source: str) -> bool:
        return source in self.sources

    def add(self, sources: Iterable[str]) -> None:
        self._write(self.sources | set(sources))

    def discard(self, sources: Iterable[str]) -> None:
        self._write(self.sources - set(sources))

    def _write(self, new: set[str]) -> None:
        if new == self.sources:
            return
        self.sources = new
        if self.path is None:
            return
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            sidecar.write(self.path, sorted(new))
        elif self.path.exists():
            self.path.unlink()
