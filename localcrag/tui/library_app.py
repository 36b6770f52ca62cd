"""The library half of the app: document list, ingestion, re-indexing and demo documents.

Kept apart from ``app.py`` (navigation, models, settings, privacy) because ingestion is
the app's other long-running job: a thread worker reports progress and the result back
as messages, and the state every screen shows lives here as reactives.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.reactive import reactive

from localcrag.errors import describe_error
from localcrag.tui.messages import IngestFinished, IngestUpdate, RefreshSources, SourcesLoaded
from localcrag.tui.modals import ConfirmModal
from localcrag.tui.watching import WatchingApp

INDEX_POLL_S = 1.0  # how often the app looks at the index's change stamp (one stat): a
# terminal's ingest or a watched folder shows in the Library within ~1-2 s


class IngestCancelled(BaseException):
    """Raised from the progress callback to stop Library.ingest between files (not an Exception,
    so the library's per-file error handling does not swallow it)."""


class LibraryApp(WatchingApp, App[int]):
    """Base of ``LocalcragApp``: needs ``self.backend`` (set by the subclass)."""

    library_ready: reactive[bool] = reactive(False)
    sources: reactive[tuple] = reactive(())
    ingest_progress: reactive[Any] = reactive(None)
    ingest_report: reactive[Any] = reactive(None, always_update=True)
    previous_sources: reactive[tuple] = reactive(
        ()
    )  # indexed with other settings, not in this table
    demo_active: reactive[bool] = reactive(False)  # questions go to the demo's own index
    watched: reactive[tuple] = reactive(())  # folders kept in sync (tui/watching.py)

    def __init__(self) -> None:
        super().__init__()
        self.library_error: str | None = None
        self._ingest_cancel = threading.Event()
        self.ingesting = False
        self.ingest_stopped: int | None = None  # files indexed before the last ingest was stopped
        self._demo_roots: list[Path] | None = None
        self.demo_index: tuple[str, ...] = ()  # documents in the demo's own index

    def on_unmount(self) -> None:
        self._ingest_cancel.set()
        self.stop_watching()

    # --- the document list ----------------------------------------------------------------

    def _library_state(self) -> tuple[tuple, tuple, tuple]:
        """(documents questions go to, documents indexed only with other settings, documents
        in the demo's own index). The demo is searched only while the user's library is empty."""
        lib = self.backend.library()
        sources = tuple(lib.sources())
        try:
            demo = tuple(self.backend.demo_library().sources())
        except Exception:  # noqa: BLE001 - a demo index that cannot be read is no demo
            demo = ()
        self.backend.demo_active = not sources and bool(demo)
        try:
            current = {s.source for s in sources}
            previous = tuple(
                p for p in getattr(lib, "previous_sources", lambda: [])() if p not in current
            )
        except Exception:  # noqa: BLE001 - only a hint; never stops the listing
            previous = ()
        return (demo if self.backend.demo_active else sources), previous, demo

    def _list_sources(self) -> None:
        try:
            sources, previous, demo = self._library_state()
            self.post_message(SourcesLoaded(sources, previous, demo=demo))
        except Exception as exc:  # noqa: BLE001
            self.post_message(SourcesLoaded(None, error=describe_error(exc)[0]))

    def _show_state(self, sources: Any, previous: Sequence[str], demo: Sequence[Any]) -> None:
        """Show a listing; say so once when the user's own documents replace the demo."""
        was_demo = self.demo_active
        self.demo_index = tuple(s.source for s in demo)
        self.demo_active = self.backend.demo_active
        self.previous_sources = tuple(previous)
        self.sources = tuple(sources)
        if was_demo and not self.demo_active and self.sources:
            n = len(self.demo_index)
            self.notify(
                f"Answers now come from your documents only. The {n} demo document"
                f"{'s stay' if n != 1 else ' stays'} in {'their' if n != 1 else 'its'} own index "
                "and is no longer searched (ctrl+d in the Library deletes it).",
                title="Demo documents",
                timeout=15,
            )

    @work(thread=True, group="sources", exit_on_error=False)
    def refresh_sources(self) -> None:
        self._list_sources()

    @work(thread=True, group="index-poll", exclusive=True, exit_on_error=False)
    def check_index(self) -> None:
        """Another process (``localcrag ingest`` in a terminal) changed the index: re-open it
        and re-read the document list. Our own ingest reports its result itself."""
        if not self.ingesting and self.backend.sync_index():
            self._list_sources()

    @on(RefreshSources)
    def _refresh_requested(self) -> None:
        self.refresh_sources()

    @on(SourcesLoaded)
    def _sources_loaded(self, msg: SourcesLoaded) -> None:
        self.library_error = msg.error  # the models dialog that follows says what to do
        if msg.sources is not None:
            self._show_state(msg.sources, msg.previous, msg.demo)
        self.library_ready = True

    # --- ingestion ----------------------------------------------------------------------

    def action_demo(self) -> None:
        paths = self.backend.demo_paths()
        if not paths:
            self.notify(
                "The project's documentation was not found next to the package.", severity="warning"
            )
            return
        if self.sources and not self.demo_active:
            self.notify(
                "The demo is only searched while your library is empty: your documents "
                "answer your questions.",
                severity="warning",
            )
            return
        if self.start_ingest(paths, demo=True):
            self.notify(
                "Indexing localcrag's own README and docs/ into a demo index of its own — "
                "ask a question when it is done."
            )

    def start_ingest(
        self, paths: Sequence[Path], replace: bool = False, demo: bool = False
    ) -> bool:
        """Index in a worker; False when another ingest is still running. ``replace``
        re-embeds unchanged files too (a re-index); old chunks stay until the new ones land."""
        if self.ingesting:
            self.notify(
                "Indexing is already running; wait for it or stop it in the Library.",
                severity="warning",
            )
            return False
        self.ingesting = True
        self.ingest_stopped = None
        self._ingest_cancel.clear()
        self.ingest_report = None
        self._ingest([Path(p) for p in paths], replace, demo)
        return True

    def reindex_previous(self) -> bool:
        """Index the documents indexed with other settings into the current table."""
        paths = [Path(p) for p in self.previous_sources if Path(p).exists()]
        if not paths:
            self.notify("No documents from other settings to re-index.")
            return False
        if self.start_ingest(paths):
            self.notify(
                f"Re-indexing {len(paths)} document{'s' if len(paths) != 1 else ''} "
                "with the current settings."
            )
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
        """The demo's own index, plus demo files indexed into the user's library by older
        versions (those are offered for removal too)."""
        if (
            getattr(self, "_legacy_of", None) is not self.sources
        ):  # asked on every key (check_action):
            self._legacy_of = self.sources  # one pass per list, not 10,000 path checks per key
            self._legacy = [s.source for s in self.sources if self.is_demo(s.source)]
        return [*self.demo_index, *(s for s in self._legacy if s not in self.demo_index)]

    def remove_demo(self) -> None:
        """Ask, then remove every demo document (the files are not touched)."""
        demo = self.demo_sources()
        if not demo:
            self.notify("No demo documents in the library.")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove_sources(demo)

        self.push_screen(
            ConfirmModal(
                f"Remove the {len(demo)} demo document{'s' if len(demo) != 1 else ''} "
                "(localcrag's own README and docs) from the library?",
                "Remove",
            ),
            confirmed,
        )

    @work(thread=True, group="remove", exit_on_error=False)
    def _remove_sources(self, sources: list[str]) -> None:
        try:
            own = set(self.demo_index)
            n = sum(self.backend.demo_library().remove(s) for s in sources if s in own)
            n += sum(self.backend.library().remove(s) for s in sources if s not in own)
            self.notify(
                f"Removed {len(sources)} demo document{'s' if len(sources) != 1 else ''} "
                f"({n} chunks)."
            )  # notify is thread-safe
        except Exception as exc:  # noqa: BLE001
            self.notify(describe_error(exc)[0], severity="error")
        self.post_message(RefreshSources())

    def cancel_ingest(self) -> None:
        if self.ingesting:
            self._ingest_cancel.set()

    @work(thread=True, group="ingest", exit_on_error=False)
    def _ingest(self, paths: list[Path], replace: bool, demo: bool = False) -> None:
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
            lib = self.backend.demo_library() if demo else self.backend.library()
            lib.on_lock_wait = lambda msg: self.notify(
                f"Indexing waits: {msg}.", severity="warning"
            )
            # a re-index replaces each file's chunks in one commit (never remove-then-add:
            # stopping in between would lose the document)
            report = (
                lib.ingest(paths, on_progress=progress, force=True)
                if replace
                else lib.ingest(paths, on_progress=progress)
            )
        except IngestCancelled:
            cancelled = True
        except Exception as exc:  # noqa: BLE001
            error = describe_error(exc)[0]
        try:
            sources, previous, demo_docs = self._library_state()
        except Exception:  # noqa: BLE001
            sources, previous, demo_docs = None, (), ()
        self.post_message(
            IngestFinished(
                report,
                sources,
                error,
                cancelled,
                indexed=indexed,
                previous=previous,
                paths=tuple(paths),
                demo=demo_docs,
            )
        )

    @on(IngestUpdate)
    def _ingest_update(self, msg: IngestUpdate) -> None:
        if self.ingesting:
            self.ingest_progress = msg.progress

    @on(IngestFinished)
    def _ingest_finished(self, msg: IngestFinished) -> None:
        self.ingesting = False
        self.ingest_progress = None
        if msg.sources is not None:
            self._show_state(msg.sources, msg.previous, msg.demo)
        self.ingest_stopped = msg.indexed if msg.cancelled else None
        self.ingest_report = msg.report
        if msg.cancelled:
            self.notify(
                f"Indexing stopped: indexed {msg.indexed}; the rest unchanged.", severity="warning"
            )
        elif msg.error:
            self.notify(f"Indexing failed: {msg.error}", severity="error", timeout=10)
        elif msg.report is not None:
            r = msg.report
            text = (
                f"Indexed {len(r.indexed)}, unchanged {len(r.unchanged)}, failed {len(r.failed)}; "
                f"{r.chunks} chunks in the library."
            )
            self.notify(
                text,
                severity="warning" if r.failed else "information",
                title="Indexing done",
                timeout=8,
            )
            self._offer_demo_removal(msg.paths, r)

    def _offer_demo_removal(self, paths: Sequence[Path], report: Any) -> None:
        """Demo docs indexed into the user's own library (by an older version) sit next to
        the user's files: offer to drop them."""
        own = [p for p in paths if not self.is_demo(Path(p).expanduser().resolve())]
        demo = [
            s.source
            for s in self.sources
            if self.is_demo(s.source) and s.source not in self.demo_index
        ]
        if own and demo and (report.indexed or report.unchanged):
            self.notify(
                f"The {len(demo)} demo document{'s' if len(demo) != 1 else ''} (localcrag's "
                "own docs) can show up in answers about your files. Press ctrl+d in the "
                "Library to remove them.",
                title="Demo documents",
                timeout=15,
            )
