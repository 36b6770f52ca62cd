"""What the app needs from the core, behind factories so tests can inject fakes.

The real Library and Pipeline import torch, LanceDB and llama.cpp, so they are built
lazily, in worker threads, the first time they are needed. Nothing here imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localcrag.history import History
from localcrag.settings import Settings, fields

if TYPE_CHECKING:  # the real Library imports LanceDB: built lazily, in a worker
    from localcrag.ingest.library import Searchable
    from localcrag.ingest.overview import Overview
    from localcrag.ingest.store import LanceStore, SourceInfo
    from localcrag.models.embed import Embedder
    from localcrag.types import Chunk, Scope

LibraryFactory = Callable[[Settings], Any]
PipelineFactory = Callable[[Settings, "Searchable"], Any]
DemoLibraryFactory = Callable[[Settings, Any], Any]  # (settings, the user's library) -> the demo's

# Changing one of these needs new models or a new grader (pipeline: the model server too,
# chosen when the generator is built), or a new index table or location (library: the
# fields of ingest.store.table_name, and where the index lives). strip_sentences sizes the
# grader's windows and refinement's strips; it is not part of the index. The rest (OCR,
# limits, web, thresholds) is read from the shared Settings when it is used.
PIPELINE_FIELDS = {
    "generator",
    "grader",
    "grader_model",
    "grader_llm",
    "n_ctx",
    "threads",
    "models_dir",
    "embedder",
    "embedder_backend",
    "chunk_tokens",
    "chunk_overlap",
    "strip_sentences",
    "llm_endpoint",
    "llm_endpoint_model",
    "llm_endpoint_key_env",
    "llm_endpoint_timeout",
    "llm_endpoint_deadline",
}
LIBRARY_FIELDS = {
    "embedder",
    "embedder_backend",
    "chunk_tokens",
    "chunk_overlap",
    "models_dir",
    "threads",
    "index_uri",
    "index_storage_options",
    "index_refresh_seconds",
}


def _real_library(settings: Settings) -> Any:
    from localcrag.ingest.library import Library

    return Library(settings)


def _real_demo_library(settings: Settings, user: Any) -> Any:
    """The demo's own index (settings.demo_index_dir), same embedder and table name as the
    user's: its documents can never be retrieved together with the user's."""
    from localcrag.ingest.library import Library
    from localcrag.ingest.store import LanceStore

    store = LanceStore(settings.demo_index_dir, user.store.name, user.embedder.dim)
    return Library(settings, embedder=user.embedder, store=store)


def _real_pipeline(settings: Settings, library: Searchable) -> Any:
    from localcrag.crag.pipeline import Pipeline

    return Pipeline(settings, library=library)


def repo_root() -> Path:
    import localcrag

    return Path(localcrag.__file__).resolve().parent.parent


def demo_paths() -> list[Path]:
    """The project's own documentation: a corpus every install has, for a first question."""
    root = repo_root()
    docs = sorted((root / "docs").rglob("*.md")) if (root / "docs").is_dir() else []
    return [p for p in [root / "README.md", *docs] if p.is_file()]  # Markdown only: no captures


def _stamp_of(library: Any) -> str:
    try:
        return str(library.change_stamp())
    except OSError:
        return ""


class ActiveLibrary:
    """What the pipeline searches (a ``Searchable``): the user's library, or, only while that
    is empty, the demo's own index. Each read goes to whichever is active at that moment."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def _active(self) -> Searchable:
        library: Searchable = self._backend.active_library()
        return library

    @property
    def store(self) -> LanceStore:
        return self._active().store

    @property
    def embedder(self) -> Embedder:
        return self._active().embedder

    def count(self) -> int:
        return self._active().count()

    def change_stamp(self) -> str:
        return self._active().change_stamp()

    def sources(self) -> list[SourceInfo]:
        return self._active().sources()

    def documents(self, sources: list[str]) -> dict[str, str]:
        return self._active().documents(sources)

    def scope(self, patterns: Sequence[str]) -> Scope:
        return self._active().scope(patterns)

    def scope_of(self, sources: Sequence[str], named_in_question: str = "") -> Scope:
        return self._active().scope_of(sources, named_in_question)

    def overview(self, source: str) -> Overview | None:
        return self._active().overview(source)

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        return self._active().get_chunk(chunk_id)


class Backend:
    """Builds and caches the Library and Pipeline; one lock so two workers never build twice.

    The demo documents live in an index of their own (``demo_library``); questions go to it
    only while the user's library is empty (``demo_active``), so the demo never shows up in
    answers about the user's files."""

    def __init__(
        self,
        settings: Settings,
        *,
        library_factory: LibraryFactory | None = None,
        pipeline_factory: PipelineFactory | None = None,
        history: History | None = None,
        demo: Callable[[], list[Path]] = demo_paths,
        demo_library_factory: DemoLibraryFactory | None = None,
    ) -> None:
        self.settings = settings
        self.library_factory = library_factory or _real_library
        self.pipeline_factory = pipeline_factory or _real_pipeline
        self.history = history or History(settings.history_dir)
        self.demo_paths = demo
        self._lock = threading.RLock()
        self._library: Any = None
        self._demo_library: Any = None
        self.demo_library_factory = demo_library_factory or _real_demo_library
        self.demo_active = False  # the user's library is empty and the demo's is not
        self._pipeline: Any = None
        self._stamp: str | None = None  # the index's change stamp when last read
        self.ready = threading.Event()  # set once warm_up finished (even when it failed)

    def library(self) -> Any:
        with self._lock:
            if self._library is None:
                self._library = self.library_factory(self.settings)
                self._stamp = _stamp_of(self._library)
            return self._library

    def demo_library(self) -> Any:
        with self._lock:
            if self._demo_library is None:
                self._demo_library = self.demo_library_factory(self.settings, self.library())
            return self._demo_library

    def choose_index(self) -> bool:
        """Decide which index questions go to (slow-ish: counts rows; call it off the UI
        thread). True when the demo is the active one."""
        active = self.library().count() == 0 and self.demo_library().count() > 0
        self.demo_active = active
        return active

    def active_library(self) -> Any:
        return self.demo_library() if self.demo_active else self.library()

    def sync_index(self) -> bool:
        """True when the index changed since last read (another process ingested, say): the
        library then re-opens its table, so the next search, the corpus statistics of the
        grader (keyed on the stamp) and the document list see the change. A stat, cheap
        enough to call before every question and on a short poll; never builds the library."""
        with self._lock:
            lib = self._library
            if lib is None:
                return False
            now = _stamp_of(lib)
            if now == self._stamp:
                return False
            self._stamp = now
        lib.refresh()
        self.choose_index()  # the user's first documents, say: the demo is no longer searched
        return True

    def pipeline(self) -> Any:
        with self._lock:
            if self._pipeline is None:
                self.library()  # opened first, as before: a library error is the first one
                self._pipeline = self.pipeline_factory(self.settings, ActiveLibrary(self))
            return self._pipeline

    def warm_up(self) -> None:
        """Load every model (slow). Always sets ``ready`` so waiting questions proceed."""
        self.ready.clear()
        try:
            self.pipeline().warm_up()
        finally:
            self.ready.set()

    def apply(self, new: Settings) -> set[str]:
        """Copy new values into the shared Settings; drop objects built from changed fields.
        Returns the names of the settings that changed."""
        diff = [f for f in fields() if f.get(new) != f.get(self.settings)]
        changed = {f.name for f in diff}
        with self._lock:
            for group in dict.fromkeys(f.group for f in diff):  # whole groups: checked as one
                setattr(self.settings, group, getattr(new, group).model_copy(deep=True))
            if changed & LIBRARY_FIELDS:
                self._library = self._demo_library = None
            if changed & PIPELINE_FIELDS:
                self._pipeline = None
        return changed

    def needs_warm_up(self, changed: set[str]) -> bool:
        return bool(changed & PIPELINE_FIELDS)
