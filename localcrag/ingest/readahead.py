"""Files read on one thread ahead of the ingest that embeds and commits them.

Why: parsing a PDF (text, tables, OCR) uses one core while the embedder waits, then the
embedder uses both while the parser waits. Reading the next files while the last ones are
embedded keeps both cores busy. The reader stays at most ``depth`` files ahead, so memory
holds at most that many parsed files besides the round being embedded; results come back
in the order of the files, so commits, and so the index, are the same as reading in line.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")

_END = object()


class Stopped(Exception):
    """Raised in the reader when the ingest it reads for has ended (an error, a cancel):
    its callbacks stop the parse in progress at the next page."""


class ReadAhead(Generic[T, R]):
    """``work(item)`` for each item, in order, computed on one thread at most ``depth``
    items ahead of the consumer. An exception that is not an ``Exception`` (a
    KeyboardInterrupt, SystemExit) ends the reading and is raised to the consumer; ``work``
    returns per-item failures as values."""

    def __init__(self, items: Iterable[T], work: Callable[[T], R], depth: int = 2) -> None:
        self._items, self._work = items, work
        self._q: queue.Queue[object] = queue.Queue(maxsize=max(depth, 1))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ingest-read", daemon=True)

    def __enter__(self) -> ReadAhead[T, R]:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if exc[0] is None:  # a normal end: the reader has finished
            self._thread.join()

    def check(self) -> None:
        """Raise Stopped once the consumer has left (for the reader's callbacks)."""
        if self._stop.is_set():
            raise Stopped

    def ready(self) -> bool:
        """Whether the next result is already read (the consumer need not wait)."""
        return not self._q.empty()

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        try:
            for item in self._items:
                if self._stop.is_set():
                    return
                try:
                    got: object = (True, self._work(item))
                except Stopped:
                    return
                except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
                    self._put((False, exc))
                    return
                if not self._put(got):
                    return
        finally:
            self._put(_END)

    def __iter__(self) -> Iterator[R]:
        while True:
            got = self._q.get()
            if got is _END:
                return
            ok, value = cast("tuple[bool, Any]", got)
            if not ok:
                raise value
            yield value
