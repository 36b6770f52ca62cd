"""Size and mtime of every indexed file, so a re-scan of an unchanged library hashes nothing.

``ingest`` decides "unchanged" by content hash; hashing 10,000 files reads them all. Beside
the table, ``<table>.filestat.json`` keeps (size, mtime_ns, hash) per source as of its last
ingest: a file whose size and mtime match is taken as its recorded hash without reading
it. As in git's "racy clean" rule, a file modified within ``RACY_SECONDS`` of when it was
recorded is hashed anyway (an edit in the same clock tick keeps size and mtime).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from localcrag.ingest import sidecar

RACY_SECONDS = 2.0


class FileStats:
    def __init__(self, path: Path | None) -> None:
        """``path`` None (an index on object storage): nothing recorded, every file hashed."""
        self.path = Path(path) if path is not None else None
        self.entries: dict[str, list] = {}  # source -> [size, mtime_ns, hash, recorded_at]
        data, self.state = sidecar.read(self.path)  # checksummed: a damaged file is not believed
        if isinstance(data, dict):
            self.entries = {
                str(k): v for k, v in data.items() if isinstance(v, list) and len(v) == 4
            }

    def known_hash(self, source: str, st: os.stat_result) -> str | None:
        """The recorded hash when size and mtime still match (None: hash the file)."""
        e = self.entries.get(source)
        if not e or e[0] != st.st_size or e[1] != st.st_mtime_ns:
            return None
        if st.st_mtime_ns / 1e9 >= e[3] - RACY_SECONDS:
            return None
        return str(e[2])

    def record(self, source: str, st: os.stat_result, doc_hash: str) -> None:
        self.entries[source] = [st.st_size, st.st_mtime_ns, doc_hash, time.time()]

    def save(self, keep: set[str]) -> None:
        """Write the entries of ``keep`` (the indexed sources) atomically; best effort."""
        if self.path is None:
            return
        try:
            sidecar.write(self.path, {s: e for s, e in self.entries.items() if s in keep})
        except OSError:  # only a speed-up: the next re-scan hashes again
            pass
