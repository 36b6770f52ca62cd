"""The demo documents live in their own index and never reach answers about the user's
files: the real Library and Pipeline behind the app's Backend."""

from __future__ import annotations

from pathlib import Path

from localcrag import events as ev
from localcrag.crag.pipeline import Pipeline
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from localcrag.tui.backend import Backend, _real_demo_library
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader


def test_the_demo_is_searched_only_while_the_users_library_is_empty(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"  # the demo: it contains the question itself
    readme.write_text(
        "# localcrag\n\nAsk: What is a cobot? localcrag answers what is a cobot.\n",
        encoding="utf-8",
    )
    mine = tmp_path / "mine" / "robots.md"
    mine.parent.mkdir()
    mine.write_text(
        "# Robots\n\nCobots are collaborative robots working next to people.\n", encoding="utf-8"
    )
    settings = Settings(
        offline=True, upper_threshold=0.6, lower_threshold=0.35, strip_threshold=0.35
    )
    backend = Backend(
        settings,
        library_factory=lambda s: Library(s, embedder=FakeEmbedder()),
        demo_library_factory=_real_demo_library,
        demo=lambda: [readme],
        pipeline_factory=lambda s, lib: Pipeline(
            s, library=lib, grader=FakeGrader(), generator=FakeGenerator("Cobots [1].")
        ),
    )
    backend.demo_library().ingest([readme])
    assert backend.choose_index() and backend.library().count() == 0

    def sources_retrieved() -> set[str]:
        evs = list(backend.pipeline().run("What is a cobot?"))
        return {
            Path(h.chunk.source).name for e in evs if isinstance(e, ev.Retrieved) for h in e.hits
        }

    assert sources_retrieved() == {"README.md"}  # an empty library: the demo answers
    backend.library().ingest([mine])
    assert not backend.choose_index()
    assert sources_retrieved() == {"robots.md"}  # never the demo again
    assert Path(backend.demo_library().store.path) == settings.demo_index_dir != settings.index_dir
    assert [Path(s.source).name for s in backend.library().sources()] == ["robots.md"]
