"""The Library's "watch" toggle: folders the app keeps in sync while it runs.

A mixin of ``LibraryApp`` (kept apart so that module stays short). The watcher runs in a
thread of its own (``localcrag.ingest.watch.WatchService``); what it writes touches the
index's change stamp, so the app's index poll refreshes the Library and its counts the
same way it does for a terminal's ``localcrag ingest``. Here: toggling, and saying what
failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from localcrag.ingest.watch import WatchService
from localcrag.tui.messages import RefreshSources


class WatchingApp:
    """Needs ``self.backend``, ``self.notify``, ``self.post_message`` and a ``watched``
    reactive (tuple of folder paths) on the app."""

    watcher: WatchService | None = None

    def start_watching(self) -> None:
        """Resume watching the folders saved by an earlier session (none: no thread)."""
        self.watcher = WatchService(
            self.backend.library,
            self.backend.settings.index_dir,
            self._watch_report,
            self._watch_error,
        )
        self.watched = tuple(str(f) for f in self.watcher.folders)
        self.watcher.start()

    def stop_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    def toggle_watch(self, folder: Path) -> None:
        if self.watcher is None:
            self.start_watching()
        on = self.watcher.toggle(folder)
        self.watched = tuple(str(f) for f in self.watcher.folders)
        if on:
            self.notify(
                f"Watching {folder}: files created, changed, moved or deleted in it are "
                "indexed within seconds, now and whenever the app runs (w again stops).",
                title="Watched folder",
                timeout=8,
            )
        else:
            self.notify(f"Stopped watching {folder}; its documents stay in the library.")

    def is_watched(self, path: str | Path) -> bool:
        return self.watcher is not None and self.watcher.watching(path)

    def _watch_report(self, report: Any) -> None:  # the watcher's thread
        for _, error in report.failed:
            self.notify(f"Watched folder: {error}", severity="warning", timeout=10)
        if report.indexed or report.removed:
            self.post_message(RefreshSources())

    def _watch_error(self, message: str) -> None:  # the watcher's thread
        self.notify(message, severity="error", timeout=10)
