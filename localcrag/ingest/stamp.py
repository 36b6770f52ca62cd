"""The index's change stamp: one small file every write to the index touches.

A running app (or any long-lived Library) cannot see rows another process committed: an
open LanceDB table handle stays at its version until it is re-opened. Reading the table
version would mean opening the table; a ``stat`` of this file is cheap enough to poll, so
writers touch it and readers re-open the table when its stamp moved.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

NAME = "changed.stamp"


def touch(index_dir: Path) -> None:
    """Record that the index changed (best effort: a stamp that cannot be written only
    delays what other processes see until they re-open the index)."""
    path = Path(index_dir) / NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{time.time():.6f} {os.getpid()}\n", encoding="utf-8")
    except OSError:
        pass


def read(index_dir: Path) -> str:
    """The stamp's mtime and text ("" when no write happened yet): the text names the
    writer's time and pid, so two writes in one clock tick still differ."""
    path = Path(index_dir) / NAME
    try:
        return f"{path.stat().st_mtime_ns}:{path.read_text(encoding='utf-8').strip()}"
    except OSError:
        return ""
