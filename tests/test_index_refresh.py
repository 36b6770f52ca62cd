"""An ingest by another process is visible to a long-lived Library after refresh (issue 16, item 3)."""

from __future__ import annotations

from pathlib import Path

from localcrag.crag.pipeline import Pipeline
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.fakes import FakeEmbedder


def test_a_running_library_sees_another_writers_ingest_after_refresh(tmp_path: Path) -> None:
    (tmp_path / "robots.md").write_text("Cobots are collaborative robots in factories.\n", encoding="utf-8")
    (tmp_path / "pets.md").write_text("The office cat is called Miso. She sleeps on the printer.\n",
                                      encoding="utf-8")
    writer = Library(Settings(), embedder=FakeEmbedder())  # `localcrag ingest` in a terminal
    writer.ingest([tmp_path / "robots.md"])
    app = Library(Settings(), embedder=FakeEmbedder())  # the running app's library
    pipe = Pipeline(app.settings, library=app)
    before, grader = app.count(), pipe.grader
    stamp = app.change_stamp()
    writer.ingest([tmp_path / "pets.md"])
    assert app.change_stamp() != stamp  # cheap to notice: one stat of the stamp file
    app.refresh()
    assert app.count() > before and any(s.source.endswith("pets.md") for s in app.sources())
    assert pipe.grader is not grader  # the grader's corpus statistics are rebuilt
    removed_stamp = app.change_stamp()
    writer.remove(tmp_path / "pets.md")
    assert app.change_stamp() != removed_stamp
