"""The library half of the app: document list, ingestion, re-indexing and demo documents.

Kept apart from ``app.py`` (navigation, models, settings, privacy) because ingestion is
the app's other long-running job: a thread worker reports progress and the result back
as messages, and the state every screen shows lives here as reactives.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

from textual import on, work
from textual.app import App
from textual.reactive import reactive

from localcrag.errors import describe_error
from localcrag.tui.messages import IngestFinished, IngestUpdate, RefreshSources, SourcesLoaded
from localcrag.tui.modals import ConfirmModal


class IngestCancelled(BaseException):
    """Raised from the progress callback to stop Library.ingest between files (not an Exception,
    so the library's per-file error handling does not swallow it)."""


class LibraryApp(App[int]):
    """Base of ``LocalcragApp``: needs ``self.backend`` (set by the subclass)."""

    library_ready: reactive[bool] = reactive(False)
    sources: reactive[tuple] = reactive(())
    ingest_progress: reactive[Any] = reactive(None)
    ingest_report: reactive[Any] = reactive(None, always_update=True)
    previous_sources: reactive[tuple] = reactive(())  # indexed with other settings, not in this table

    def __init__(self) -> None:
        super().__init__()
        self.library_error: str | None = None
        self._ingest_cancel = threading.Event()
        self.ingesting = False
        self.ingest_stopped: int | None = None  # files indexed before the last ingest was stopped
        self._demo_roots: list[Path] | None = None

    def on_unmount(self) -> None:
        self._ingest_cancel.set()

    # --- the document list ----------------------------------------------------------------

    def _library_state(self) -> tuple[tuple, tuple]:
        """(documents in the current table, documents indexed only with other settings)."""
        lib = self.backend.library()
        sources = tuple(lib.sources())
        try:
            current = {s.source for s in sources}
            previous = tuple(p for p in getattr(lib, "previous_sources", lambda: [])()
                             if p not in current)
        except Exception:  # noqa: BLE001 - only a hint; never stops the listing
            previous = ()
        return sources, previous

    def _list_sources(self) -> None:
        try:
            self.post_message(SourcesLoaded(*self._library_state()))
        except Exception as exc:  # noqa: BLE001
            self.post_message(SourcesLoaded(None, error=describe_error(exc)[0]))

    @work(thread=True, group="sources", exit_on_error=False)
    def refresh_sources(self) -> None:
        self._list_sources()

    @on(RefreshSources)
    def _refresh_requested(self) -> None:
        self.refresh_sources()

    @on(SourcesLoaded)
    def _sources_loaded(self, msg: SourcesLoaded) -> None:
        self.library_error = msg.error  # the models dialog that follows says what to do
        if msg.sources is not None:
            self.previous_sources = tuple(msg.previous)
            self.sources = tuple(msg.sources)
        self.library_ready = True

    # --- ingestion ----------------------------------------------------------------------

    def action_demo(self) -> None:
        paths = self.backend.demo_paths()
        if not paths:
            self.notify("The project's documentation was not found next to the package.",
                        severity="warning")
            return
        if self.start_ingest(paths):
            self.notify("Indexing localcrag's own README and docs/ — ask a question when it is done.")

    def start_ingest(self, paths: Sequence[Path], replace: bool = False) -> bool:
        """Index in a worker; False when another ingest is still running. ``replace``
        re-embeds unchanged files too (a re-index); old chunks stay until the new ones land."""
        if self.ingesting:
            self.notify("Indexing is already running; wait for it or stop it in the Library.",
                        severity="warning")
            return False
        self.ingesting = True
        self.ingest_stopped = None
        self._ingest_cancel.clear()
        self.ingest_report = None
        self._ingest([Path(p) for p in paths], replace)
        return True

    def reindex_previous(self) -> bool:
        """Index the documents indexed with other settings into the current table."""
        paths = [Path(p) for p in self.previous_sources if Path(p).exists()]
        if not paths:
            self.notify("No documents from other settings to re-index.")
            return False
        if self.start_ingest(paths):
            self.notify(f"Re-indexing {len(paths)} document{'s' if len(paths) != 1 else ''} "
                        "with the current settings.")
            return True
        return False

    # --- demo documents -------------------------------------------------------------------

    def demo_roots(self) -> list[Path]:
        if self._demo_roots is None:
            try:
                self._demo_roots = [Path(p).resolve() for p in self.backend.demo_paths()]
            except OSError:
                self._demo_roots = []
        return self._demo_roots

    def is_demo(self, source: str | Path) -> bool:
        p = Path(source)
        return any(p == root or p.is_relative_to(root) for root in self.demo_roots())

    def demo_sources(self) -> list[str]:
        return [s.source for s in self.sources if self.is_demo(s.source)]

    def remove_demo(self) -> None:
        """Ask, then remove every demo document (the files are not touched)."""
        demo = self.demo_sources()
        if not demo:
            self.notify("No demo documents in the library.")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove_sources(demo)

        self.push_screen(ConfirmModal(f"Remove the {len(demo)} demo document{'s' if len(demo) != 1 else ''} "
                                      "(localcrag's own README and docs) from the library?", "Remove"),
                         confirmed)

    @work(thread=True, group="remove", exit_on_error=False)
    def _remove_sources(self, sources: list[str]) -> None:
        try:
            lib = self.backend.library()
            n = sum(lib.remove(s) for s in sources)
            self.notify(f"Removed {len(sources)} demo document{'s' if len(sources) != 1 else ''} "
                        f"({n} chunks).")  # notify is thread-safe
        except Exception as exc:  # noqa: BLE001
            self.notify(describe_error(exc)[0], severity="error")
        self.post_message(RefreshSources())

    def cancel_ingest(self) -> None:
        if self.ingesting:
            self._ingest_cancel.set()

    @work(thread=True, group="ingest", exit_on_error=False)
    def _ingest(self, paths: list[Path], replace: bool) -> None:
        indexed = 0

        def progress(p: Any) -> None:
            nonlocal indexed
            if p.stage == "indexed":
                indexed += 1
            if self._ingest_cancel.is_set():
                raise IngestCancelled
            self.post_message(IngestUpdate(p))

        report, error, cancelled = None, None, False
        try:
            lib = self.backend.library()
            lib.on_lock_wait = lambda msg: self.notify(f"Indexing waits: {msg}.", severity="warning")
            # a re-index replaces each file's chunks in one commit (never remove-then-add:
            # stopping in between would lose the document)
            report = lib.ingest(paths, on_progress=progress, force=True) if replace else \
                lib.ingest(paths, on_progress=progress)
        except IngestCancelled:
            cancelled = True
        except Exception as exc:  # noqa: BLE001
            error = describe_error(exc)[0]
        try:
            sources, previous = self._library_state()
        except Exception:  # noqa: BLE001
            sources, previous = None, ()
        self.post_message(IngestFinished(report, sources, error, cancelled, indexed=indexed,
                                         previous=previous, paths=tuple(paths)))

    @on(IngestUpdate)
    def _ingest_update(self, msg: IngestUpdate) -> None:
        if self.ingesting:
            self.ingest_progress = msg.progress

    @on(IngestFinished)
    def _ingest_finished(self, msg: IngestFinished) -> None:
        self.ingesting = False
        self.ingest_progress = None
        if msg.sources is not None:
            self.previous_sources = tuple(msg.previous)
            self.sources = tuple(msg.sources)
        self.ingest_stopped = msg.indexed if msg.cancelled else None
        self.ingest_report = msg.report
        if msg.cancelled:
            self.notify(f"Indexing stopped: indexed {msg.indexed}; the rest unchanged.", severity="warning")
        elif msg.error:
            self.notify(f"Indexing failed: {msg.error}", severity="error", timeout=10)
        elif msg.report is not None:
            r = msg.report
            text = (f"Indexed {len(r.indexed)}, unchanged {len(r.unchanged)}, failed {len(r.failed)}; "
                    f"{r.chunks} chunks in the library.")
            self.notify(text, severity="warning" if r.failed else "information",
                        title="Indexing done", timeout=8)
            self._offer_demo_removal(msg.paths, r)

    def _offer_demo_removal(self, paths: Sequence[Path], report: Any) -> None:
        """The user added their own files while the demo docs are still there: offer to drop them."""
        own = [p for p in paths if not self.is_demo(Path(p).expanduser().resolve())]
        demo = self.demo_sources()
        if own and demo and (report.indexed or report.unchanged):
            self.notify(f"The {len(demo)} demo document{'s' if len(demo) != 1 else ''} (localcrag's "
                        "own docs) can show up in answers about your files. Press ctrl+d in the "
                        "Library to remove them.", title="Demo documents", timeout=15)
