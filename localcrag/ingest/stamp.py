"""The index's change stamp: what a reader polls to notice another process's write.

A running app (or any long-lived Library) cannot see rows another process committed: an
open LanceDB table handle stays at its version until it is re-opened. In a local folder,
reading the table version would mean opening the table; a ``stat`` of one small file is
cheap enough to poll, so writers touch it and readers re-open the table when it moved.
On object storage (``index_uri = "s3://..."``) no file beside the table is shared: the
stamp is the table version, which the connection refreshes at most every
``index_refresh_seconds`` (ingest/location.py).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

NAME = "changed.stamp"


def _folder(where: Any) -> Path | None:
    """The stamp's folder: a path, or a store's folder (None for a store on object storage)."""
    if isinstance(where, (str, Path)):
        return Path(where)
    return where.location.folder


def touch(where: Any) -> None:
    """Record that the index changed (best effort: a stamp that cannot be written only
    delays what other processes see until they re-open the index)."""
    folder = _folder(where)
    if folder is None:  # object storage: the new table version is the stamp
        return
    path = folder / NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{time.time():.6f} {os.getpid()}\n", encoding="utf-8")
    except OSError:
        pass


def read(where: Any) -> str:
    """The stamp's mtime and text ("" when no write happened yet): the text names the
    writer's time and pid, so two writes in one clock tick still differ. On object storage:
    ``v<table version>``."""
    folder = _folder(where)
    if folder is None:
        try:
            return f"v{where.table.version}" if where.exists() else ""
        except Exception:  # noqa: BLE001 - unreachable store: the next read says so, in words
            return ""
    path = folder / NAME
    try:
        return f"{path.stat().st_mtime_ns}:{path.read_bytes().decode('utf-8', 'replace').strip()}"
    except OSError:  # (damaged bytes are still a stamp that moved: never an error)
        return ""
