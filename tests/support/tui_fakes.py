"""Fakes for the TUI tests: a scripted pipeline and an in-memory library, with frozen times."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from textual.worker import WorkerCancelled

from localcrag import events as ev
from localcrag.history import History
from localcrag.ingest.library import IngestProgress, IngestReport
from localcrag.ingest.overview import Overview, Quoted
from localcrag.ingest.store import SourceInfo
from localcrag.settings import Settings
from localcrag.types import (
    Action,
    Answer,
    Chunk,
    Citation,
    Decision,
    Evidence,
    Grade,
    Hit,
    Scope,
    Strip,
    WebResult,
)

FROZEN = dt.datetime(2025, 3, 14, 9, 26).timestamp()  # local time, so it renders the same anywhere
PDF = "/docs/AI_Information.pdf"

CHUNKS = [
    Chunk(
        "c1",
        PDF,
        "Artificial intelligence (AI) is the simulation of human intelligence by machines. "
        "Machine learning lets systems learn from data without being explicitly programmed.",
        3,
        3,
        0,
        170,
        "Introduction",
    ),
    Chunk(
        "c2",
        PDF,
        "Deep learning uses neural networks with many layers. It powers image recognition "
        "and speech recognition.",
        7,
        7,
        170,
        280,
        "Deep learning",
    ),
    Chunk(
        "c3",
        PDF,
        "The history of AI began in the 1950s at the Dartmouth workshop.",
        12,
        12,
        280,
        345,
        "History",
    ),
]
ANSWER = (
    "Artificial intelligence is the simulation of human intelligence by machines [1]. "
    "**Deep learning** uses neural networks with many layers [2]."
)


def answer_events(
    question: str,
    *,
    action: Action = Action.CORRECT,
    answer: str = ANSWER,
    rewritten: str | None = None,
    web: str | None = None,
    style: str = "generative",
    dropped: int = 0,
) -> list[ev.Event]:
    """A complete, deterministic run: retrieval, grading, decision, refinement, web, tokens."""
    hits = tuple(Hit(c, s, i) for i, (c, s) in enumerate(zip(CHUNKS, (0.033, 0.031, 0.016))))
    scores = (0.82, 0.55, 0.12)
    grades = [Grade(c, s, "fusion") for c, s in zip(CHUNKS, scores)]
    evidence = (
        Evidence(
            1,
            "Artificial intelligence (AI) is the simulation of human intelligence by machines.",
            PDF,
            3,
            score=0.82,
            chunk_id=CHUNKS[0].chunk_id,
        ),
        Evidence(
            2,
            "Deep learning uses neural networks with many layers.",
            PDF,
            7,
            score=0.55,
            chunk_id=CHUNKS[1].chunk_id,
        ),
    )
    out: list[ev.Event] = []
    if rewritten:
        out.append(ev.QuestionRewritten(question, rewritten))
    out += [
        ev.StageStarted("retrieve"),
        ev.Retrieved(hits),
        ev.StageFinished("retrieve", 12.0),
        ev.StageStarted("grade"),
    ]
    out += [ev.ChunkGraded(g, i, len(grades)) for i, g in enumerate(grades)]
    out += [
        ev.StageFinished("grade", 340.0),
        ev.DecisionMade(Decision(action, 0.82, 0.6, 0.35, "a chunk scored 0.82 ≥ upper 0.60")),
        ev.StageStarted("refine"),
        ev.Refined(tuple(Strip(e.text, CHUNKS[i], e.score, 0) for i, e in enumerate(evidence)), 6),
        ev.StageFinished("refine", 80.0),
    ]
    if web:
        out += [
            ev.StageStarted("web"),
            ev.WebQuery(web),
            ev.WebResults(web, (WebResult("AI overview", "https://example.org/ai", "AI is…"),)),
            ev.StageFinished("web", 900.0),
        ]
    else:
        out.append(ev.WebSkipped("not needed"))
    out.append(ev.StyleChosen(style, f"answer_style = {style}", "SmolLM2-135M-Instruct"))
    out.append(ev.StageStarted("generate"))
    words = answer.split(" ")
    out += [ev.Token(w + (" " if i < len(words) - 1 else "")) for i, w in enumerate(words)]
    out.append(ev.StageFinished("generate", 2100.0))
    cites = tuple(Citation(e.n, e.source, e.page, None) for e in evidence)
    out.append(
        ev.AnswerDone(
            Answer(question, answer, cites, action, style=style, dropped_sentences=dropped),
            evidence,
            {
                "retrieve": 12.0,
                "grade": 340.0,
                "refine": 80.0,
                "generate": 2100.0,
                "first_token": 900.0,
                "generate_end": 2535.0,
                "total": 2540.0,
            },
        )
    )
    return out


class FakePipeline:
    """Yields a scripted run. ``block_after`` tokens: wait for cancel, then end like the real one.
    ``web_query``: ask confirm_web first and record the answer in ``web_allowed``."""

    def __init__(
        self,
        script: Callable[[str], list[ev.Event]] = answer_events,
        *,
        block_after: int | None = None,
        web_query: str | None = None,
        warm_error: Exception | None = None,
        run_error: Exception | None = None,
    ) -> None:
        self.script, self.block_after, self.web_query = script, block_after, web_query
        self.warm_error, self.run_error = warm_error, run_error
        self.calls: list[dict] = []
        self.web_allowed: list[bool] = []
        self.blocked = threading.Event()  # set when the run is waiting for cancel
        self.warmed = 0

    def warm_up(self) -> None:
        self.warmed += 1
        if self.warm_error:
            raise self.warm_error

    def run(
        self,
        question: str,
        *,
        mode: str = "crag",
        history: Sequence[tuple[str, str]] | None = None,
        confirm_web: Callable[[str], bool] | None = None,
        cancel: threading.Event | None = None,
        k: int | None = None,
        rewrite: bool = True,
        style: str | None = None,
        scope: Scope | None = None,
        named_scope: bool = True,
    ) -> Iterator[ev.Event]:
        cancel = cancel or threading.Event()
        self.calls.append(
            {
                "question": question,
                "history": list(history or []),
                "mode": mode,
                "rewrite": rewrite,
                "scope": scope,
                "named_scope": named_scope,
            }
        )
        if self.run_error:
            raise self.run_error
        if self.web_query is not None:
            allowed = bool(confirm_web and confirm_web(self.web_query))
            self.web_allowed.append(allowed)
            yield ev.WebQuery(self.web_query) if allowed else ev.WebSkipped("declined")
        tokens: list[str] = []
        for event in self.script(question):
            if isinstance(event, ev.AnswerDone) and cancel.is_set():
                a = event.answer
                yield ev.AnswerDone(
                    Answer(a.question, "".join(tokens), (), a.action),
                    event.evidence,
                    event.timings_ms,
                )
                return
            if isinstance(event, ev.Token):
                if cancel.is_set():
                    continue
                tokens.append(event.text)
                yield event
                if self.block_after is not None and len(tokens) == self.block_after:
                    self.blocked.set()
                    if not cancel.wait(10):
                        raise RuntimeError("test never cancelled")
                continue
            yield event


class FakeLibrary:
    """Documents in memory; files whose name contains 'broken' fail to ingest.

    Like the real one, a file's entry is replaced only once it is indexed (a stop before
    that keeps the old one). ``pause_before=i``: before file i, set ``paused`` and wait for
    ``resume`` (to stop an ingest half-way). ``previous``: documents indexed with other settings.
    """

    def __init__(
        self,
        sources: Sequence[SourceInfo] = (),
        chunks: Sequence[Chunk] = CHUNKS,
        *,
        previous: Sequence[str] = (),
        pause_before: int | None = None,
    ) -> None:
        self._sources = {s.source: s for s in sources}
        self._chunks = {c.chunk_id: c for c in chunks}
        self.previous = list(previous)
        self.pause_before = pause_before
        self.paused, self.resume = threading.Event(), threading.Event()
        self.ingested: list[list[str]] = []
        self.forced: list[bool] = []
        self.removed: list[str] = []
        self.kept_out: list[str] = []  # removed by the user: kept out of folder ingests
        self.stamp = 0  # bumped by every write, like the index's change stamp file
        self.refreshed = 0
        self._outside: dict[str, SourceInfo] = {}  # committed by another process, not yet seen

    def change_stamp(self) -> str:
        return str(self.stamp)

    def refresh(self) -> None:
        self.refreshed += 1
        self._sources.update(self._outside)
        self._outside.clear()

    def ingest_from_outside(self, source: str, chunks: int = 3) -> None:
        """What `localcrag ingest` in another terminal does: visible only after refresh()."""
        self._outside[source] = SourceInfo(source, 1, chunks, FROZEN, "outside")
        self.stamp += 1

    def previous_sources(self) -> list[str]:
        return sorted(self.previous)

    def sources(self) -> list[SourceInfo]:
        return sorted(self._sources.values(), key=lambda s: s.source)

    def count(self) -> int:
        return sum(s.chunks for s in self._sources.values())

    def overview(self, source: str) -> Overview | None:
        """What the real one makes at ingest, from the document's first chunk of ours."""
        info = self._sources.get(source)
        if info is None:
            return None
        first = next(iter(self._chunks.values()), None)
        quoted = (Quoted(first.text, first.chunk_id, first.page_start),) if first else ()
        return Overview(
            source, info.doc_hash, f"About {Path(source).stem}", ("Introduction",), quoted
        )

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        return self._chunks.get(chunk_id)

    def remove(self, path: Path | str, keep_out: bool = False) -> int:
        self.removed.append(str(path))
        self.kept_out.extend([str(path)] if keep_out else [])
        s = self._sources.pop(str(path), None)
        self.stamp += 1
        return s.chunks if s else 0

    def ingest(
        self,
        paths: Sequence[Path | str],
        prune: bool = False,
        on_progress: Callable[[IngestProgress], None] | None = None,
        force: bool = False,
    ) -> IngestReport:
        files: list[Path] = []
        for p in map(Path, paths):
            files += sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
        self.ingested.append([str(f) for f in files])
        self.forced.append(force)
        report = IngestReport()
        for i, f in enumerate(files):
            if i == self.pause_before:
                self.paused.set()
                if not self.resume.wait(10):
                    raise RuntimeError("test never resumed the ingest")
            if on_progress:  # a stop raises here: this file keeps its old entry
                on_progress(IngestProgress(i, len(files), str(f), "parsed"))
            if "broken" in f.name:  # like some parsers, the message starts with the path
                report.failed.append((str(f), f"{f}: could not read (damaged file)"))
                stage = "failed"
            else:
                # indexed after the file's last edit, like the real one (else it reads "changed")
                at = max(FROZEN, f.stat().st_mtime if f.exists() else 0.0)
                self._sources[str(f)] = SourceInfo(str(f), 2, 5, at, "hash")
                report.indexed.append(str(f))
                stage = "indexed"
            if on_progress:
                on_progress(IngestProgress(i + 1, len(files), str(f), stage))
        report.chunks = self.count()
        self.stamp += 1
        return report


def demo_sources() -> list[SourceInfo]:
    return [
        SourceInfo(PDF, 24, 61, FROZEN, "h1"),
        SourceInfo("/docs/notes/crag-paper.md", 1, 14, FROZEN, "h2"),
    ]


# --- pilot helpers ------------------------------------------------------------------------


async def settle(pilot: Any) -> None:
    """Let workers finish and every message they posted be handled. (DirectoryTree's queue
    loader never finishes by design, so it is left out.)"""
    for _ in range(3):
        ours = [w for w in pilot.app.workers if w.group != "_loader"]
        if ours:  # an empty list would mean "all workers"
            try:
                await pilot.app.workers.wait_for_complete(ours)
            except WorkerCancelled:  # an exclusive worker (the index poll) replaced by a newer one
                pass
        await pilot.pause()


async def until(pilot: Any, cond: Callable[[], bool], tries: int = 500) -> None:
    """Poll a condition between short pauses (for states reached while a worker still runs)."""
    for _ in range(tries):
        if cond():
            return
        await pilot.pause(0.01)
    raise AssertionError("condition never became true")


async def ask(pilot: Any, question: str) -> None:
    from textual.widgets import Input

    pilot.app.screen.query_one("#question", Input).value = question
    await pilot.press("enter")


# --- building the app under test (imported lazily: textual is only needed by TUI tests) ---


SIZE = (120, 40)


def make_app(
    tmp_path: Path,
    pipeline: FakePipeline | None = None,
    library: FakeLibrary | None = None,
    settings: Settings | None = None,
    **kw,
) -> tuple[Any, FakePipeline, FakeLibrary]:
    """The app with a scripted pipeline and an in-memory library; history at a frozen clock."""
    from localcrag.tui.app import LocalcragApp

    pipeline = pipeline or FakePipeline()
    library = library if library is not None else FakeLibrary(demo_sources())
    settings = settings or Settings(models_dir=tmp_path / "models")
    history = kw.pop("history", None) or History(settings.history_dir, clock=lambda: FROZEN)
    demo = kw.pop("demo_library", None) or FakeLibrary(chunks=())  # the demo's own index
    app = LocalcragApp(
        settings,
        pipeline_factory=lambda s, lib: pipeline,
        library_factory=lambda s: library,
        history=history,
        browse_root=kw.pop("browse_root", tmp_path),
        network_probe=kw.pop("network_probe", lambda: True),
        demo_library_factory=lambda s, user: demo,
        **kw,
    )
    return app, pipeline, library


def chat(app: Any) -> Any:
    """The chat screen (asserts it is the one showing)."""
    from localcrag.tui.screens.chat import ChatScreen

    screen = app.screen
    assert isinstance(screen, ChatScreen)
    return screen
