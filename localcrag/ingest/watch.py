"""Watched folders: the index follows files created, changed, moved and deleted in them.

``watchfiles`` (inotify/FSEvents/ReadDirectoryChangesW, polling elsewhere) reports
changes in bursts: an editor's save is several events (temp file, rename), so a burst
ends after WATCH_QUIET_MS without news (at most WATCH_MAX_MS after its first event) and
is applied as one ingest of the files that exist plus one removal of the paths that do
not. Both go through the library's incremental path: unchanged content is skipped by
hash, a document's chunks are replaced in one commit, and the writer lock keeps a watcher
and a terminal's ``localcrag ingest`` from both inserting one file. A move is a removal
and an addition. Before the first burst the folders are brought up to date once (a
pruning ingest), after the OS watch is live, so nothing changed in between is missed.

The folders the app watches are kept in ``watched.json`` beside the index, so they are
watched again after a restart.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from localcrag.ingest.library import IngestReport
from localcrag.ingest.walk import _hidden, iter_files, wanted

WATCH_QUIET_MS = 300  # a burst of changes ends after this long without a new one ...
WATCH_MAX_MS = 2000  # ... or this long after it began
POLL_MS = 500  # how often the OS watch is checked for a stop request


def _inside(path: Path, roots: Sequence[Path]) -> Path | None:
    """The watched folder holding ``path`` (None: outside all of them)."""
    for root in roots:
        if path == root or path.is_relative_to(root):
            return root
    return None


def plan(
    changes: Iterable[tuple[Any, str]], roots: Sequence[Path]
) -> tuple[list[Path], list[Path]]:
    """(files to ingest, paths to remove) for a burst of raw changes. Hidden entries below a
    watched folder are ignored (editor swap files, ``.git``); a folder that appeared (moved
    in) contributes every supported file under it."""
    add: set[Path] = set()
    gone: set[Path] = set()
    for _, raw in changes:
        path = Path(raw)
        root = _inside(path, roots)
        if root is None or any(_hidden(p) for p in path.relative_to(root).parts):
            continue
        try:
            if path.is_dir():
                add.update(iter_files([path])[0])
            elif path.is_file():
                if wanted(path.relative_to(root)):
                    add.add(path.resolve())
            else:
                gone.add(path)
        except OSError:  # unreadable: the ingest of its folder reports it; nothing to do here
            continue
    return sorted(add), sorted(gone)


def apply(library: Any, changes: Iterable[tuple[Any, str]], roots: Sequence[Path]) -> IngestReport:
    """Bring the index up to date with one burst of changes (under one writer lock)."""
    add, gone = plan(changes, roots)
    report = IngestReport()
    if not add and not gone:
        return report
    with library.writing():
        if add:
            report = library.ingest(add, take_back=False)  # a file the user removed stays out
        for path in gone:
            report.removed.extend(src for src, _ in library.remove_under(path))
        report.chunks = library.count()
    return report


def watch(
    library: Any,
    paths: Sequence[Path | str],
    on_report: Callable[[IngestReport], None],
    stop: threading.Event | None = None,
    ready: threading.Event | None = None,
) -> None:
    """Watch ``paths`` until ``stop`` is set: a pruning ingest first, then one ``apply`` per
    burst; every result (even an empty one) goes to ``on_report``; ``ready`` is set once the
    first catch-up ingest is done."""
    import logging

    import watchfiles

    logging.getLogger("watchfiles").setLevel(
        logging.ERROR
    )  # no "KeyboardInterrupt caught" line: Ctrl+C is how it stops
    roots = [Path(p).expanduser().resolve() for p in paths]
    synced = False
    for changes in watchfiles.watch(
        *roots,
        watch_filter=None,
        debounce=WATCH_MAX_MS,
        step=WATCH_QUIET_MS,
        stop_event=stop,
        rust_timeout=POLL_MS,
        yield_on_timeout=True,
        raise_interrupt=False,
        ignore_permission_denied=True,
    ):
        if not synced:  # the OS watch is live from here on: catch up once
            on_report(library.ingest(roots, prune=True))
            synced = True
            if ready is not None:
                ready.set()
        if changes:
            on_report(apply(library, changes, roots))


# --- the app's list of watched folders ------------------------------------------------------


def watched_path(index_dir: Path) -> Path:
    return Path(index_dir) / "watched.json"


def load_watched(index_dir: Path) -> list[Path]:
    """Folders the app watches ([] when none, or the file is unreadable)."""
    try:
        data = json.loads(watched_path(index_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [Path(p) for p in data if isinstance(p, str)] if isinstance(data, list) else []


def save_watched(index_dir: Path, folders: Iterable[Path]) -> None:
    """Write the list atomically (a crash leaves the previous one)."""
    path = watched_path(index_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(sorted({str(p) for p in folders}), indent=0), encoding="utf-8")
    os.replace(tmp, path)


class WatchService:
    """The app's watched folders: one background thread watching them all, restarted when
    a folder is added or dropped (the old thread stops at its next poll; the writer lock
    keeps the two from overlapping writes)."""

    def __init__(
        self,
        library_of: Callable[[], Any],
        index_dir: Path,
        on_report: Callable[[IngestReport], None],
        on_error: Callable[[str], None],
    ) -> None:
        self.library_of = library_of  # built in the thread: the first build loads the embedder
        self.index_dir = Path(index_dir)
        self.on_report, self.on_error = on_report, on_error
        self.folders: list[Path] = [p for p in load_watched(self.index_dir) if p.is_dir()]
        self._stop: threading.Event | None = None

    def toggle(self, folder: Path) -> bool:
        """Watch ``folder`` (True) or stop watching it (False); the list is saved."""
        folder = Path(folder).expanduser().resolve()
        on = folder not in self.folders
        self.folders = (
            sorted(set(self.folders) | {folder}) if on else [f for f in self.folders if f != folder]
        )
        save_watched(self.index_dir, self.folders)
        self.start()
        return on

    def watching(self, path: str | Path) -> bool:
        p = Path(path)
        return any(p == f or p.is_relative_to(f) for f in self.folders)

    def start(self) -> None:
        self.stop()
        if not self.folders:
            return
        self._stop = stop = threading.Event()
        folders = list(self.folders)

        def run() -> None:
            from localcrag.errors import describe_error

            try:
                watch(self.library_of(), folders, self.on_report, stop)
            except Exception as exc:  # noqa: BLE001 - the app says so; it never crashes
                if not stop.is_set():
                    self.on_error(f"watching stopped: {describe_error(exc)[0]}")

        threading.Thread(target=run, name="localcrag-watch", daemon=True).start()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None
