"""An ingest by another process is visible to a long-lived Library after refresh."""

from __future__ import annotations

from pathlib import Path

from localcrag.crag.pipeline import Pipeline
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder


def test_a_running_library_sees_another_writers_ingest_after_refresh(tmp_path: Path) -> None:
    (tmp_path / "robots.md").write_text(
        "Cobots are collaborative robots in factories.\n", encoding="utf-8"
    )
    (tmp_path / "pets.md").write_text(
        "The office cat is called Miso. She sleeps on the printer.\n", encoding="utf-8"
    )
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


def test_ingest_reports_the_file_being_read_and_embedding_speed(
    tmp_path: Path, monkeypatch
) -> None:  # noqa: ANN001
    """Three small files used to sit at "0/3 parsed" until one silent embedding call ended."""
    from localcrag.ingest import library as library_module

    monkeypatch.setattr(library_module, "EMBED_PROGRESS_CHUNKS", 2)
    for i in range(3):
        (tmp_path / f"n{i}.md").write_text(
            "\n\n".join(f"Paragraph {j} of note {i} about topic {j}." * 6 for j in range(4)),
            encoding="utf-8",
        )
    seen: list = []
    lib = Library(Settings(chunk_tokens=32, chunk_overlap=0), embedder=FakeEmbedder())
    lib.ingest([tmp_path], on_progress=seen.append)
    stages = [p.stage for p in seen]
    for i in range(3):  # each file is named before it is parsed
        name = str(tmp_path / f"n{i}.md")
        assert stages[[p.path for p in seen].index(name)] == "reading"
    embedding = [p for p in seen if p.stage == "embedding"]
    assert len(embedding) >= 3 and embedding[-1].chunks_done == embedding[-1].chunks_total > 2
    assert [p.chunks_done for p in embedding] == sorted(p.chunks_done for p in embedding)
    assert embedding[-1].rate > 0 and {p.path for p in embedding} >= {str(tmp_path / "n0.md")}
    assert stages.index("embedding") < stages.index("indexed")
