"""Messages from worker threads back to the UI (posting a message is thread-safe), and
``Host``: what the app's helpers (the library controller, the folder watcher) may call on it."""

from __future__ import annotations

import queue
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.worker import Worker


class Host(Protocol):
    """The app as its helpers see it: post a message (from any thread), notify (from any
    thread), run a worker. A helper never reaches for a widget or a reactive."""

    def post_message(self, message: Message) -> bool: ...

    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = ..., timeout: float = ...
    ) -> None: ...

    def run_worker(
        self,
        work: Callable[[], Any],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...


class ModelsLoaded(Message):
    def __init__(self, error: str | None = None, details: str | None = None) -> None:
        super().__init__()
        self.error, self.details = error, details


class ModelsLoading(Message):
    pass


class SourcesLoaded(Message):
    def __init__(
        self,
        sources: Sequence[Any] | None,
        previous: Sequence[str] = (),
        error: str | None = None,
        demo: Sequence[Any] = (),
    ) -> None:
        super().__init__()
        self.sources, self.previous, self.error = sources, previous, error
        self.demo = demo  # the demo index's documents


class IngestUpdate(Message):
    def __init__(self, progress: Any) -> None:
        super().__init__()
        self.progress = progress


class IngestFinished(Message):
    def __init__(
        self,
        report: Any | None,
        sources: Sequence[Any] | None,
        error: str | None = None,
        cancelled: bool = False,
        *,
        indexed: int = 0,
        previous: Sequence[str] = (),
        paths: Sequence[Any] = (),
        demo: Sequence[Any] = (),
    ) -> None:
        super().__init__()
        self.report, self.sources, self.error, self.cancelled = report, sources, error, cancelled
        self.indexed = indexed  # files indexed before a stop
        self.previous, self.paths, self.demo = previous, paths, demo


class RefreshSources(Message):
    """Ask the app to re-read the document list (after a remove, say)."""


# --- chat: one question's run ------------------------------------------------------------


class PipelineEvent(Message):
    """One event the pipeline yielded for run ``run_id``."""

    def __init__(self, run_id: int, event: Any) -> None:
        super().__init__()
        self.run_id, self.event = run_id, event


class ConsentRequest(Message):
    """The pipeline wants to search the web: show ``query``, answer through ``answers``."""

    def __init__(self, query: str, answers: queue.Queue[str | None]) -> None:
        super().__init__()
        self.query, self.answers = query, answers


class ShowPassage(Message):
    """A chunk was looked up off the UI thread; show it."""

    def __init__(
        self, evidence: Any, chunk: Any, style: str | None = None, quoted: list[str] | None = None
    ) -> None:
        super().__init__()
        self.evidence, self.chunk, self.style = evidence, chunk, style
        self.quoted = quoted or []  # the sentences a quoted answer took from this passage


class OverviewLoaded(Message):
    """A document's overview was read off the UI thread (None with ``error``: it could not)."""

    def __init__(self, source: str, overview: Any, error: str | None = None) -> None:
        super().__init__()
        self.source, self.overview, self.error = source, overview, error


class RunEnded(Message):
    def __init__(
        self,
        run_id: int,
        error: str | None = None,
        details: str | None = None,
        empty_index: bool = False,
    ) -> None:
        super().__init__()
        self.run_id, self.error, self.details = run_id, error, details
        self.empty_index = empty_index  # nothing to search: say which keys fix it
