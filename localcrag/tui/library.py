"""The app's library controller: the document list, ingestion, re-indexing and removal.

``LibraryController`` is owned by the app and does the library's long work in thread
workers (listing, indexing, polling the index's change stamp, removing); every result goes
back to the app as a message (``SourcesLoaded``, ``IngestUpdate``, ``IngestFinished``,
``RefreshSources``), and the app turns those into the reactives the screens show. It holds
only the job's own state: whether an ingest runs, how to stop it, which documents are the
demo's. It never touches a widget or a reactive.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from localcrag.errors import describe_error
from localcrag.tui.backend import Backend
from localcrag.tui.messages import (
    Host,
    IngestFinished,
    IngestUpdate,
    RefreshSources,
    SourcesLoaded,
)
from localcrag.tui.widgets.labels import plural

INDEX_POLL_S = 1.0  # how often the app looks at the index's change stamp (one stat): a
# terminal's ingest or a watched folder shows in the Library within ~1-2 s


class IngestCancelled(BaseException):
    """Raised from the progress callback to stop Library.ingest between files (not an Exception,
    so the library's per-file error handling does not swallow it)."""


class LibraryController:
    """``LibraryController(app, backend)``: the library's jobs for the app (see the module)."""

    def __init__(self, host: Host, backend: Backend) -> None:
        self.host = host
        self.backend = backend
        self.ingesting = False
        self.stopped: int | None = None  # files indexed before the last ingest was stopped
        self._cancel = threading.Event()
        self._demo_roots: list[Path] | None = None
        self.demo_index: tuple[str, ...] = ()  # documents in the demo's own index
        self._legacy_of: Sequence[Any] | None = None
        self._legacy: list[str] = []

    def close(self) -> None:
        """The app is closing: a running ingest stops after its current file."""
        self._cancel.set()

    # --- the document list ----------------------------------------------------------------

    def state(self) -> tuple[tuple, tuple, tuple]:
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
            previous = tuple(p for p in lib.previous_sources() if p not in current)
        except Exception:  # noqa: BLE001 - only a hint; never stops the listing
            previous = ()
        return (demo if self.backend.demo_active else sources), previous, demo

    def list_sources(self) -> None:
        """Read the document list and post it (``SourcesLoaded``); call it off the UI thread."""
        try:
            sources, previous, demo = self.state()
            self.host.post_message(SourcesLoaded(sources, previous, demo=demo))
        except Exception as exc:  # noqa: BLE001
            self.host.post_message(SourcesLoaded(None, error=describe_error(exc)[0]))

    def refresh(self) -> None:
        """Re-read the document list in a worker."""
        self.host.run_worker(self.list_sources, thread=True, group="sources", exit_on_error=False)

    def poll(self) -> None:
        """Another process (``localcrag ingest`` in a terminal) changed the index: re-open it
        and re-read the document list. Our own ingest reports its result itself."""

        def check() -> None:
            if not self.ingesting and self.backend.sync_index():
                self.list_sources()

        self.host.run_worker(
            check, thread=True, group="index-poll", exclusive=True, exit_on_error=False
        )

    def listed(self, demo: Sequence[Any]) -> None:
        """A listing reached the app: remember which documents are in the demo's index."""
        self.demo_index = tuple(s.source for s in demo)

    # --- ingestion ----------------------------------------------------------------------

    def ingest(self, paths: Sequence[Path], replace: bool = False, demo: bool = False) -> bool:
        """Index in a worker; False when another ingest is still running. ``replace``
        re-embeds unchanged files too (a re-index); old chunks stay until the new ones land."""
        if self.ingesting:
            self.host.notify(
                "Indexing is already running; wait for it or stop it in the Library.",
                severity="warning",
            )
            return False
        self.ingesting = True
        self.stopped = None
        self._cancel.clear()
        job = partial(self._ingest, [Path(p) for p in paths], replace, demo)
        self.host.run_worker(job, thread=True, group="ingest", exit_on_error=False)
        return True

    def cancel(self) -> None:
        if self.ingesting:
            self._cancel.set()

    def _ingest(self, paths: list[Path], replace: bool, demo: bool) -> None:  # a worker
        indexed = 0

        def progress(p: Any) -> None:
            nonlocal indexed
            if p.stage == "indexed":
                indexed += 1
            if self._cancel.is_set():
                raise IngestCancelled
            self.host.post_message(IngestUpdate(p))

        report, error, cancelled = None, None, False
        try:
            lib = self.backend.demo_library() if demo else self.backend.library()
            lib.on_lock_wait = lambda msg: self.host.notify(
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
            sources, previous, demo_docs = self.state()
        except Exception:  # noqa: BLE001
            sources, previous, demo_docs = None, (), ()
        self.host.post_message(
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

    def finished(self, msg: IngestFinished) -> None:
        """The ingest's result reached the app: the job is over (before the app shows it)."""
        self.ingesting = False
        self.stopped = msg.indexed if msg.cancelled else None

    def announce(self, msg: IngestFinished, sources: Sequence[Any]) -> None:
        """Say how the ingest ended, once the app shows its result."""
        if msg.cancelled:
            self.host.notify(
                f"Indexing stopped: indexed {msg.indexed}; the rest unchanged.", severity="warning"
            )
        elif msg.error:
            self.host.notify(f"Indexing failed: {msg.error}", severity="error", timeout=10)
        elif msg.report is not None:
            r = msg.report
            text = (
                f"Indexed {len(r.indexed)}, unchanged {len(r.unchanged)}, failed {len(r.failed)}; "
                f"{r.chunks} chunks in the library."
            )
            self.host.notify(
                text,
                severity="warning" if r.failed else "information",
                title="Indexing done",
                timeout=8,
            )
            self._offer_demo_removal(msg.paths, r, sources)

    def _offer_demo_removal(
        self, paths: Sequence[Path], report: Any, sources: Sequence[Any]
    ) -> None:
        """Demo docs indexed into the user's own library (by an older version) sit next to
        the user's files: offer to drop them."""
        own = [p for p in paths if not self.is_demo(Path(p).expanduser().resolve())]
        demo = [
            s.source for s in sources if self.is_demo(s.source) and s.source not in self.demo_index
        ]
        if own and demo and (report.indexed or report.unchanged):
            self.host.notify(
                f"The {plural(len(demo), 'demo document')} (localcrag's "
                "own docs) can show up in answers about your files. Press ctrl+d in the "
                "Library to remove them.",
                title="Demo documents",
                timeout=15,
            )

    # --- demo documents and removal -------------------------------------------------------

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

    def demo_sources(self, sources: Sequence[Any]) -> list[str]:
        """The demo's own index, plus demo files indexed into the user's library (``sources``)
        by older versions (those are offered for removal too)."""
        if self._legacy_of is not sources:  # asked on every key (check_action): one pass
            self._legacy_of = sources  # per list, not 10,000 path checks per key
            self._legacy = [s.source for s in sources if self.is_demo(s.source)]
        return [*self.demo_index, *(s for s in self._legacy if s not in self.demo_index)]

    def remove(self, sources: Sequence[str], demo: bool = False) -> None:
        """Remove documents from the index in a worker (the files are not touched); say how
        many chunks went, then the list is re-read. ``demo``: these are the demo's documents
        (from its own index, or legacy ones in the user's)."""
        job = partial(self._remove, list(sources), demo)
        self.host.run_worker(job, thread=True, group="remove", exit_on_error=False)

    def _remove(self, sources: list[str], demo: bool) -> None:  # a worker
        try:
            own = set(self.demo_index) if demo else set()
            n = sum(self.backend.demo_library().remove(s) for s in sources if s in own)
            n += sum(
                self.backend.library().remove(s, keep_out=True) for s in sources if s not in own
            )
            what = plural(len(sources), "demo document") if demo else Path(sources[0]).name
            self.host.notify(f"Removed {what} ({n} chunks).")  # notify is thread-safe
        except Exception as exc:  # noqa: BLE001
            self.host.notify(describe_error(exc)[0], severity="error")
        self.host.post_message(RefreshSources())
