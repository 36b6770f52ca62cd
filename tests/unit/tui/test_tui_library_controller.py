"""The app's library controller on its own: it sees the app only as a Host (post a message,
notify, run a worker) and reports every result as a message. Here the host runs each worker
inline, so nothing waits and nothing sleeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.message import Message

from localcrag.settings import Settings
from localcrag.tui.backend import Backend
from localcrag.tui.library import LibraryController
from localcrag.tui.messages import (
    IngestFinished,
    IngestUpdate,
    RefreshSources,
    SourcesLoaded,
)
from tests.support.tui_fakes import FakeLibrary, demo_sources


class InlineHost:
    """A Host that records messages and notifications and runs workers at once."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.notes: list[tuple[str, str]] = []
        self.groups: list[str] = []
        self.hold: list[Callable[[], Any]] | None = None  # set: keep workers, run them later

    def post_message(self, message: Message) -> bool:
        self.messages.append(message)
        return True

    def notify(self, message: str, *, severity: str = "information", **_: Any) -> None:
        self.notes.append((severity, message))

    def run_worker(self, work: Callable[[], Any], group: str = "default", **_: Any) -> Any:
        self.groups.append(group)
        if self.hold is not None:
            self.hold.append(work)
        else:
            work()

    def of(self, kind: type[Message]) -> list[Any]:
        return [m for m in self.messages if isinstance(m, kind)]


def controller(tmp_path: Path, lib: FakeLibrary) -> tuple[LibraryController, InlineHost]:
    settings = Settings(models_dir=tmp_path / "models")
    backend = Backend(
        settings,
        library_factory=lambda s: lib,
        demo_library_factory=lambda s, user: FakeLibrary(chunks=()),
        demo=lambda: [],
    )
    host = InlineHost()
    return LibraryController(host, backend), host  # type: ignore[arg-type]


def test_ingest_reports_progress_and_the_new_listing_as_messages(tmp_path: Path) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nThe cat is called Miso.\n")
    lib = FakeLibrary(demo_sources())
    ctl, host = controller(tmp_path, lib)
    assert ctl.ingest([doc]) and host.groups == ["ingest"]
    assert [p.stage for p in (m.progress for m in host.of(IngestUpdate))] == ["parsed", "indexed"]
    (done,) = host.of(IngestFinished)
    assert done.report.indexed == [str(doc)] and not done.cancelled and done.indexed == 1
    assert str(doc) in {s.source for s in done.sources}
    assert ctl.ingesting  # until the app has the result: then finished() ends the job
    ctl.finished(done)
    assert not ctl.ingesting and ctl.stopped is None
    ctl.announce(done, done.sources)
    assert host.notes[-1][1].startswith("Indexed 1, unchanged 0, failed 0")


def test_a_second_ingest_is_refused_and_a_stop_counts_what_was_indexed(tmp_path: Path) -> None:
    files = [tmp_path / f"{n}.md" for n in ("a", "b", "c")]
    for f in files:
        f.write_text(f"# {f.stem}\n\nText.\n")
    ctl, host = controller(tmp_path, FakeLibrary())
    host.hold = []
    assert ctl.ingest(files)
    assert not ctl.ingest(files)  # one ingest at a time, said in one line
    assert host.notes == [
        ("warning", "Indexing is already running; wait for it or stop it in the Library.")
    ]
    (job,) = host.hold
    ctl.cancel()
    job()  # the worker runs with the stop already asked: it ends before the first file
    (done,) = host.of(IngestFinished)
    assert done.cancelled and done.indexed == 0 and done.report is None
    ctl.finished(done)
    assert ctl.stopped == 0 and not ctl.ingesting


def test_listing_polling_and_removal_go_back_as_messages(tmp_path: Path) -> None:
    lib = FakeLibrary(demo_sources())
    ctl, host = controller(tmp_path, lib)
    ctl.refresh()
    (listed,) = host.of(SourcesLoaded)
    assert [s.source for s in listed.sources] == [s.source for s in demo_sources()]
    ctl.poll()  # nothing changed since the library was opened: nothing re-read
    assert len(host.of(SourcesLoaded)) == 1
    lib.ingest_from_outside("/notes/pets.md")
    ctl.poll()
    assert "/notes/pets.md" in {s.source for s in host.of(SourcesLoaded)[-1].sources}
    ctl.remove(["/notes/pets.md"])
    assert lib.removed == ["/notes/pets.md"] and host.of(RefreshSources)
    assert host.notes[-1][1].startswith("Removed pets.md (")
    assert host.groups == ["sources", "index-poll", "index-poll", "remove"]
