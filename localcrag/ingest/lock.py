"""One writer per index, any number of readers.

Two ingests that commit the same new document at once would both insert its chunks
(LanceDB appends do not conflict), so every write to an index holds an exclusive
``flock`` on ``writer.lock`` beside the tables. The lock file carries the holder's pid
for the "another ingest is running" message. Readers never take it: LanceDB versions
give them a consistent snapshot. The kernel drops the lock when a writer dies, so a
killed ingest never leaves a stale lock behind.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from localcrag.errors import LocalcragError


class IndexBusy(LocalcragError):
    """Another process is writing to the index and the caller chose not to wait."""


def _holder(path: Path) -> str:
    try:
        pid = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        pid = ""
    return f"pid {pid}" if pid.isdigit() else "pid unknown"


class WriterLock:
    """Re-entrant (per object) exclusive lock on an index folder."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / "writer.lock"
        self._mutex = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def acquire(self, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> None:
        """Take the lock; when someone else holds it, say so through ``on_wait`` and block
        (``wait``) or raise IndexBusy."""
        import fcntl

        self._mutex.acquire()
        if self._depth:
            self._depth += 1
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except BaseException:
            self._mutex.release()
            raise
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                who = _holder(self.path)
                if not wait:
                    raise IndexBusy(
                        f"another ingest is running ({who}) on {self.path.parent}",
                        "wait for it to finish, or run again without --no-wait to wait",
                    ) from None
                if on_wait:
                    on_wait(f"another ingest is running ({who}); waiting for it to finish")
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except BaseException:
            os.close(fd)
            self._mutex.release()
            raise
        self._fd, self._depth = fd, 1

    def release(self) -> None:
        if self._depth == 1 and self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None
        self._depth -= 1
        self._mutex.release()

    @property
    def depth(self) -> int:
        """How many nested acquires the holder has made (0: not held by this object)."""
        return self._depth
