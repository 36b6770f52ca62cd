"""Where the index lives: a local folder, or a shared LanceDB database on object storage.

Why a module of its own: the store only needs "a LanceDB connection and what kind of place
this is"; everything that differs between a folder on this machine and ``s3://bucket/prefix``
is decided here. On a folder, writers take an ``flock`` (ingest/lock.py) and touch a stamp
file (ingest/stamp.py). Neither works across machines, so on object storage:

* the connection checks for newer table versions at most every ``index_refresh_seconds``
  (LanceDB's ``read_consistency_interval``), so readers see other machines' ingests;
* the change stamp is the table version itself;
* writers do not lock: Lance commits a version with a conditional put (put-if-not-exists)
  and ``merge_insert`` retries on a commit conflict; the table declares ``chunk_id`` its
  (unenforced) primary key, so two writers inserting the same new chunks conflict instead of
  both inserting them. Other writes (delete, compaction) are retried here on a conflict.

What Lance guarantees and what it does not is written up in docs/shared-index.md.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from localcrag.errors import LocalcragError
from localcrag.settings.groups import REMOTE_SCHEMES

T = TypeVar("T")
CONFLICT_RETRIES = (
    5  # commit conflicts retried per write (a conflict means: someone else committed)
)
REMOTE_MIN_KEEP_MINUTES = 10.0  # old versions a shared index keeps at least: a writer on another
# machine may still be committing on top of one (cleanup would delete the files it reads)


class OfflineIndex(LocalcragError):
    """The index is on object storage and the offline setting forbids the network."""


@dataclass(frozen=True)
class IndexLocation:
    """A LanceDB database URI (a folder, or ``s3://bucket/prefix``) and its connect options."""

    uri: str
    storage_options: dict[str, str] = field(default_factory=dict)
    refresh_seconds: float = 5.0

    @property
    def remote(self) -> bool:
        return "://" in self.uri and self.uri.split("://", 1)[0].lower() in REMOTE_SCHEMES

    @property
    def folder(self) -> Path | None:
        """The local folder (None on object storage)."""
        if self.remote:
            return None
        return Path(self.uri.removeprefix("file://"))

    @property
    def cache_dir(self) -> Path:
        """Where derived files of this index may be kept on this machine (e.g. a vector cache):
        the folder itself, or for object storage a folder of this machine's cache dir per URI."""
        if not self.remote:
            return self.folder  # type: ignore[return-value]
        import hashlib

        from localcrag.settings import data_dir

        return data_dir() / "cache" / f"index-{hashlib.sha1(self.uri.encode()).hexdigest()[:12]}"

    def __str__(self) -> str:
        return self.uri

    def connect(self) -> Any:
        """A LanceDB connection; on object storage one that looks for new versions on reads."""
        import lancedb

        if not self.remote:
            self.folder.mkdir(parents=True, exist_ok=True)  # type: ignore[union-attr]
            return lancedb.connect(str(self.folder))
        try:
            return lancedb.connect(
                self.uri,
                storage_options=dict(self.storage_options) or None,
                read_consistency_interval=timedelta(seconds=self.refresh_seconds),
            )
        except (OSError, RuntimeError, ValueError) as exc:  # Lance's errors, in one line
            raise self._unreachable(exc) from exc

    def _unreachable(self, exc: BaseException) -> BaseException:
        from localcrag.ingest.faults import IndexUnreachable, translate

        text = str(exc)
        if "resolve region" in text:
            return IndexUnreachable(
                f"cannot open the shared index {self.uri}: no region is set, and the bucket's "
                "region could not be looked up",
                "set region in index_storage_options (e.g. "
                "LOCALCRAG_INDEX_STORAGE_OPTIONS='{region = \"eu-west-1\"}') or AWS_REGION",
            )
        return translate(exc, self.uri) or exc


def index_location(settings: Any) -> IndexLocation:
    """The user's index: ``index_uri`` when set, else the local data dir (the demo and eval
    indexes are always local: their own folders). Offline, an index on object storage is
    refused here, before LanceDB could resolve a name or open a connection."""
    storage = settings.storage
    uri = storage.index_uri
    if not uri:
        return IndexLocation(str(settings.index_dir))
    location = IndexLocation(
        uri, dict(storage.index_storage_options or {}), float(storage.index_refresh_seconds)
    )
    if location.remote and settings.web.offline:
        raise OfflineIndex(
            f"offline: index_uri = {uri} is on object storage, which needs the "
            "network (the offline setting or --offline is on)",
            "unset index_uri (and LOCALCRAG_INDEX_URI) to use the index on this "
            "machine, or turn offline off",
        )
    return location


def as_location(where: IndexLocation | Path | str) -> IndexLocation:
    return where if isinstance(where, IndexLocation) else IndexLocation(str(where))


def is_conflict(exc: BaseException) -> bool:
    """A Lance commit conflict: another writer committed first (retryable on the new version)."""
    text = str(exc).lower()
    return "conflict" in text and ("commit" in text or "retryable" in text)


def retry_conflicts(
    write: Callable[[], T],
    before_retry: Callable[[], None] | None = None,
    attempts: int = CONFLICT_RETRIES,
) -> T:
    """Run a write; on a commit conflict re-open (``before_retry``) and run it again, with a
    short random back-off so two writers do not collide again in step."""
    for attempt in range(attempts):
        try:
            return write()
        except (RuntimeError, OSError, ValueError) as exc:
            if not is_conflict(exc) or attempt == attempts - 1:
                raise
            time.sleep(random.uniform(0.05, 0.3) * (attempt + 1))
            if before_retry:
                before_retry()
    raise AssertionError("unreachable")


class SharedWrites:
    """The writer "lock" of an index on object storage: re-entrant within this process (threads
    of one app still write one at a time), not across machines, where Lance's commit protocol
    (conditional put + conflict retries) keeps the table whole. Same interface as WriterLock."""

    def __init__(self) -> None:
        self._mutex = threading.RLock()
        self._depth = 0

    def acquire(self, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> None:
        self._mutex.acquire()
        self._depth += 1

    def release(self) -> None:
        self._depth -= 1
        self._mutex.release()

    @property
    def depth(self) -> int:
        return self._depth


def writer_lock(location: IndexLocation) -> Any:
    """The lock strategy for a location: an ``flock`` on a folder, SharedWrites on object storage."""
    from localcrag.ingest.lock import WriterLock

    return SharedWrites() if location.remote else WriterLock(location.folder)  # type: ignore[arg-type]
