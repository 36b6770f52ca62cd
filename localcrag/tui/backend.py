"""What the app needs from the core, behind factories so tests can inject fakes.

The real Library and Pipeline import torch, LanceDB and llama.cpp, so they are built
lazily, in worker threads, the first time they are needed. Nothing here imports textual.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from localcrag.history import History
from localcrag.settings import Settings

LibraryFactory = Callable[[Settings], Any]
PipelineFactory = Callable[[Settings, Any], Any]

# Changing one of these needs new models or a new grader (pipeline), or a new index table
# (library: the fields of ingest.store.table_name). strip_sentences sizes the grader's
# windows and refinement's strips; it is not part of the index.
PIPELINE_FIELDS = {"generator", "scorer", "grader", "grader_llm", "n_ctx", "threads", "models_dir",
                   "embedder", "embedder_backend", "chunk_tokens", "chunk_overlap", "strip_sentences"}
LIBRARY_FIELDS = {"embedder", "embedder_backend", "chunk_tokens", "chunk_overlap", "models_dir", "threads"}


def _real_library(settings: Settings) -> Any:
    from localcrag.ingest.library import Library

    return Library(settings)


def _real_pipeline(settings: Settings, library: Any) -> Any:
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


class Backend:
    """Builds and caches the Library and Pipeline; one lock so two workers never build twice."""

    def __init__(self, settings: Settings, *, library_factory: LibraryFactory | None = None,
                 pipeline_factory: PipelineFactory | None = None, history: History | None = None,
                 demo: Callable[[], list[Path]] = demo_paths) -> None:
        self.settings = settings
        self.library_factory = library_factory or _real_library
        self.pipeline_factory = pipeline_factory or _real_pipeline
        self.history = history or History(settings.history_dir)
        self.demo_paths = demo
        self._lock = threading.RLock()
        self._library: Any = None
        self._pipeline: Any = None
        self.ready = threading.Event()  # set once warm_up finished (even when it failed)

    def library(self) -> Any:
        with self._lock:
            if self._library is None:
                self._library = self.library_factory(self.settings)
            return self._library

    def pipeline(self) -> Any:
        with self._lock:
            if self._pipeline is None:
                self._pipeline = self.pipeline_factory(self.settings, self.library())
            return self._pipeline

    def warm_up(self) -> None:
        """Load every model (slow). Always sets ``ready`` so waiting questions proceed."""
        self.ready.clear()
        try:
            self.pipeline().warm_up()
        finally:
            self.ready.set()

    def apply(self, new: Settings) -> set[str]:
        """Copy new values into the shared Settings; drop objects built from changed fields."""
        changed = {name for name in Settings.model_fields
                   if getattr(new, name) != getattr(self.settings, name)}
        with self._lock:
            for name in changed:
                setattr(self.settings, name, getattr(new, name))
            if changed & LIBRARY_FIELDS:
                self._library = None
            if changed & PIPELINE_FIELDS:
                self._pipeline = None
        return changed

    def needs_warm_up(self, changed: set[str]) -> bool:
        return bool(changed & PIPELINE_FIELDS)
