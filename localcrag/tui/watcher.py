"""The app's folder watcher: the folders the Library's "w" keeps in sync while the app runs.

``FolderWatcher`` is owned by the app. The watching itself runs in a thread of its own
(``localcrag.ingest.watch.WatchService``); what it writes touches the index's change stamp,
so the app's index poll refreshes the Library and its counts the same way it does for a
terminal's ``localcrag ingest``. From that thread it only notifies (failures) and posts
``RefreshSources`` to the app. The app shows ``folders`` as its ``watched`` reactive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from localcrag.ingest.watch import WatchService
from localcrag.tui.backend import Backend
from localcrag.tui.messages import Host, RefreshSources


class FolderWatcher:
    """``FolderWatcher(app, backend)``; ``start()`` resumes the folders an earlier session
    watched (none: no thread), ``toggle(folder)`` turns one on or off, ``stop()`` ends it."""

    def __init__(self, host: Host, backend: Backend) -> None:
        self.host = host
        self.backend = backend
        self._service: WatchService | None = None

    @property
    def folders(self) -> tuple[str, ...]:
        """The watched folders, as the Library shows them."""
        return tuple(str(f) for f in self._service.folders) if self._service else ()

    def start(self) -> None:
        """Resume watching the folders saved by an earlier session (none: no thread)."""
        self._service = WatchService(
            self.backend.library,
            self.backend.settings.index_dir,
            self._report,
            self._error,
        )
        self._service.start()

    def stop(self) -> None:
        if self._service is not None:
            self._service.stop()

    def toggle(self, folder: Path) -> bool:
        """Watch ``folder``, or stop watching it; True when it is watched now. Says which."""
        if self._service is None:
            self.start()
        assert self._service is not None
        on = self._service.toggle(folder)
        if on:
            self.host.notify(
                f"Watching {folder}: files created, changed, moved or deleted in it are "
                "indexed within seconds, now and whenever the app runs (w again stops).",
                title="Watched folder",
                timeout=8,
            )
        else:
            self.host.notify(f"Stopped watching {folder}; its documents stay in the library.")
        return on

    def watching(self, path: str | Path) -> bool:
        return self._service is not None and self._service.watching(path)

    def _report(self, report: Any) -> None:  # the watcher's thread
        for _, error in report.failed:
            self.host.notify(f"Watched folder: {error}", severity="warning", timeout=10)
        if report.indexed or report.removed:
            self.host.post_message(RefreshSources())

    def _error(self, message: str) -> None:  # the watcher's thread
        self.host.notify(message, severity="error", timeout=10)
