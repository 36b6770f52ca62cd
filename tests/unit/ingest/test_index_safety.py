"""The index's safety on real LanceDB tables: racing writers, compaction, a deleted data file,
duplicates, a read-only folder and a full disk, each in the user's words."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localcrag.ingest import doctor
from localcrag.ingest.faults import DiskFull, IndexNotWritable
from localcrag.ingest.library import Library
from localcrag.ingest.lock import WriterLock
from localcrag.ingest.maintain import duplicates
from localcrag.settings import Settings
from tests.support import REPO
from tests.support.fakes import FakeEmbedder

RAW = ("lance error", "Traceback", ".rs:", "LanceError")

# The real CLI with the fake embedder (instant), so subprocess tests exercise main().
_CLI = """
import sys
from localcrag.ingest import library
from tests.support.fakes import FakeEmbedder
library.load_embedder = lambda *a, **k: FakeEmbedder()
from localcrag.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOCALCRAG_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-c", _CLI, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )


def _start(*args: str, home: Path) -> subprocess.Popen:
    env = {**os.environ, "LOCALCRAG_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-c", _CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )


def _folder(path: Path, n: int) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (path / f"note{i:04d}.txt").write_text(
            f"Note {i}: the robot arm number {i} is calibrated.\n"
        )
    return path


def _lib(**kw: object) -> Library:
    return Library(Settings(**kw), embedder=FakeEmbedder())


def _clean(text: str) -> None:
    assert not any(r in text for r in RAW), text


def test_racing_ingests_of_one_folder_leave_no_duplicates(tmp_path: Path) -> None:
    for run in range(3):
        home = tmp_path / f"home{run}"
        folder = _folder(tmp_path / f"docs{run}", 300)
        procs = [_start("ingest", str(folder), "--json", home=home) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        reports = [json.loads(o) for o, _ in outs]
        assert sorted(len(r["indexed"]) for r in reports) == [0, 300]  # one indexed, one waited
        os.environ["LOCALCRAG_HOME"] = str(home)
        lib = _lib()
        assert lib.count() == 300 and duplicates(lib.store) == (0, [])


def test_a_held_lock_is_named_with_its_pid_and_no_wait_fails_at_once(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "docs", 3)
    lock = WriterLock(Settings().index_dir)
    lock.acquire()
    try:
        out = _cli("ingest", str(folder), "--no-wait", home=Path(os.environ["LOCALCRAG_HOME"]))
        assert (
            out.returncode == 1 and f"another ingest is running (pid {os.getpid()})" in out.stderr
        )
        waiting = _start("ingest", str(folder), home=Path(os.environ["LOCALCRAG_HOME"]))
        line = waiting.stderr.readline()
        assert "another ingest is running" in line and "waiting" in line
    finally:
        lock.release()
    rest, _ = waiting.communicate(timeout=300)
    assert waiting.returncode == 0 and "indexed 3" in rest


def _disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_the_index_stays_proportional_to_its_rows(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "docs", 600)
    lib = _lib(index_keep_minutes=0)
    lib.ingest([folder])
    rows = lib.store.table.to_arrow().nbytes
    assert len(lib.store.table.list_versions()) == 1
    # the rows thrice over, plus the source index: ~60 bytes a document (here 600 of one row)
    assert _disk(lib.store.path) <= 3 * rows + 100 * 600, (_disk(lib.store.path), rows)
    kept = _lib()  # the default keeps an hour of versions: one per batch, not one per file
    (folder / "note0000.txt").write_text("changed")
    kept.ingest([folder])
    assert len(kept.store.table.list_versions()) <= 6
    hits = kept.store.search("changed", None, 3, "text")  # the full-text index kept in step
    assert hits and hits[0].chunk.source == str(folder / "note0000.txt")


def _delete_newest_data_file(lib: Library) -> None:
    files = sorted(glob.glob(str(lib.store.path / "*.lance" / "data" / "*")), key=os.path.getmtime)
    os.remove(files[-1])


def test_a_deleted_data_file_is_named_and_repaired_in_one_command(tmp_path: Path) -> None:
    home = Path(os.environ["LOCALCRAG_HOME"])
    folder = _folder(tmp_path / "docs", 300)
    assert _cli("ingest", str(folder), home=home).returncode == 0
    (folder / "note0001.txt").write_text("A changed note about grippers.\n")
    assert _cli("ingest", str(folder), home=home).returncode == 0
    _delete_newest_data_file(_lib())
    for args in (["sources"], ["search", "robot arm"], ["ingest", str(folder)]):
        out = _cli(*args, home=home)
        assert out.returncode == 1 and "index" in out.stderr and "damaged" in out.stderr, out.stderr
        assert "localcrag doctor --repair" in out.stderr
        _clean(out.stderr + out.stdout)
    check = _cli("doctor", home=home)
    assert check.returncode == 1 and "data file missing: " in check.stdout
    _clean(check.stdout)
    fixed = _cli("doctor", "--repair", home=home)
    assert fixed.returncode == 0 and "restored version" in fixed.stdout, fixed.stdout + fixed.stderr
    _clean(fixed.stdout + fixed.stderr)
    srcs = json.loads(_cli("sources", "--json", home=home).stdout)["sources"]
    assert len(srcs) == 300 and all(s["chunks"] == 1 for s in srcs)
    assert _cli("doctor", home=home).returncode == 0


def test_with_no_version_left_repair_rebuilds_from_files_and_names_the_lost(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "docs", 20)
    lib = _lib(index_keep_minutes=0)
    lib.ingest([folder])
    _delete_newest_data_file(lib)
    (folder / "note0003.txt").unlink()
    fixed = doctor.repair(_lib(index_keep_minutes=0))
    assert fixed.restored_version is None and fixed.notes
    assert fixed.unrecoverable == [str(folder / "note0003.txt")] and len(fixed.reindexed) == 19
    assert doctor.check(_lib().store).ok


def test_doctor_finds_and_removes_duplicates(tmp_path: Path) -> None:
    lib = _lib()
    lib.ingest([_folder(tmp_path / "docs", 10)])
    t = lib.store.table
    t.add(
        t.search().where("source LIKE '%note0002%'").limit(5).to_arrow()
    )  # a racing commit's copy
    up = doctor.check(lib.store)
    assert not up.ok and len(up.duplicate_docs) == 1
    fixed = doctor.repair(lib)
    assert fixed.removed_duplicates == 1 and lib.count() == 10 and doctor.check(lib.store).ok


@pytest.fixture
def tiny_fs(tmp_path: Path):
    """A real 1 MB tmpfs when the test may mount one (root), else None."""
    mnt = tmp_path / "fs"
    mnt.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True
        ).returncode
        != 0
    ):
        yield None
        return
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _read_only(folder: Path, mounted: bool) -> None:
    if mounted:
        assert subprocess.run(["mount", "-o", "remount,ro", str(folder)]).returncode == 0
    elif os.geteuid() == 0:
        pytest.skip("root ignores permissions and cannot mount here: no read-only folder to test")
    else:
        for p in [folder, *folder.rglob("*")]:
            p.chmod(p.stat().st_mode & ~0o222)


def test_a_read_only_index_still_answers_and_writes_say_which_folder(
    tmp_path: Path, tiny_fs
) -> None:
    home = (tiny_fs or tmp_path / "ro") / "home"
    folder = _folder(tmp_path / "docs", 20)
    assert _cli("ingest", str(folder), home=home).returncode == 0
    empty = (tiny_fs or tmp_path / "ro") / "empty-home"
    empty.mkdir(parents=True)
    _read_only(tiny_fs or tmp_path / "ro", tiny_fs is not None)
    assert "20 documents" in _cli("sources", home=home).stdout
    found = _cli("search", "robot arm number 7", "--json", home=home)
    assert found.returncode == 0 and json.loads(found.stdout)["results"], found.stderr
    (folder / "new.txt").write_text("A new note.")
    out = _cli("ingest", str(folder), home=home)
    assert out.returncode == 1 and f"cannot write the index in {home / 'index'}" in out.stderr, (
        out.stderr
    )
    assert "read-only" in out.stderr
    _clean(out.stderr)
    none = _cli("sources", home=empty)  # an empty read-only home: nothing indexed, no error
    assert none.returncode == 0 and "No documents indexed yet" in none.stdout, none.stderr


_ENOSPC = (
    "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to write file: "
    "No space left on device (os error 28), /root/.cargo/registry/src/object_store-0.12/src/local.rs:273:9"
)


def test_a_full_disk_at_the_store_says_which_folder_and_what_was_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from localcrag.ingest import store

    real, calls = store.arrow_rows, [0]

    def full_after_first_batch(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls[0] += 1
        if calls[0] > 128:  # the second commit of 128 one-chunk documents
            raise RuntimeError(_ENOSPC)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "arrow_rows", full_after_first_batch)
    lib = _lib()
    with pytest.raises(DiskFull) as err:
        lib.ingest([_folder(tmp_path / "docs", 300)])
    text = str(err.value)
    assert (
        f"the disk holding {lib.store.path} is full: 128 document(s)" in text
        and "run the same ingest" in text
    )
    _clean(text)
    monkeypatch.setattr(store, "arrow_rows", real)
    assert _lib().count() == 128 and len(_lib().ingest([tmp_path / "docs"]).indexed) == 172


def test_a_really_full_disk_stops_ingest_in_words_and_keeps_the_index(
    tmp_path: Path, tiny_fs
) -> None:
    if tiny_fs is None:
        pytest.skip(
            "no tmpfs can be mounted here (needs root); the simulated ENOSPC test covers the words"
        )
    home = tiny_fs / "home"
    out = _cli("ingest", str(_folder(tmp_path / "docs", 4000)), home=home)
    assert out.returncode == 1 and f"the disk holding {home / 'index'} is full" in out.stderr, (
        out.stderr[-800:]
    )
    _clean(out.stderr)
    listed = _cli("sources", home=home)
    assert listed.returncode == 0, listed.stderr


def test_storage_errors_are_translated_only_when_they_are_ours(tmp_path: Path) -> None:
    from localcrag.ingest.faults import IndexDamaged, translate

    assert isinstance(translate(RuntimeError(_ENOSPC), tmp_path), DiskFull)
    assert isinstance(translate(OSError(30, "Read-only file system"), tmp_path), IndexNotWritable)
    assert isinstance(
        translate(RuntimeError("lance error: Not found: /x/data/a.lance, /rustc/a.rs:1"), tmp_path),
        IndexDamaged,
    )
    assert translate(ValueError("dimension mismatch"), tmp_path) is None


def test_a_broken_full_text_index_is_found_and_rebuilt(tmp_path: Path) -> None:
    lib = _lib()
    lib.ingest([_folder(tmp_path / "docs", 30)])
    from tests.support.fakes import index_dirs

    fts = index_dirs(lib.store.path / f"{lib.store.name}.lance", "fts")
    for f in (p for d in fts for p in d.rglob("*")):
        if f.is_file():
            f.write_bytes(b"damaged")
    from localcrag.errors import FullTextFailed

    other = WriterLock(lib.store.path)  # another process writing: no rebuild on the search
    other.acquire()
    try:
        with pytest.raises(FullTextFailed, match="localcrag doctor --repair"):
            _lib().store.search("calibrated", None, 3, "text")
    finally:
        other.release()
    up = doctor.check(_lib().store)
    assert not up.fts_ok and any(not ok and "full-text" in what for ok, what in up.lines)
    fixed = doctor.repair(_lib())
    assert fixed.fts_rebuilt and doctor.check(_lib().store).ok
    assert _lib().store.search("calibrated", None, 3, "text")


def test_removing_documents_updates_the_list_and_compacts(tmp_path: Path) -> None:
    from localcrag.ingest.maintain import load_documents

    folder = _folder(tmp_path / "docs", 12)
    lib = _lib()
    lib.ingest([folder])
    before = len(lib.store.table.list_versions())
    removed = lib.remove_under(folder / "note0003.txt") + lib.remove_under(folder / "note0004.txt")
    assert [n for _, n in removed] == [1, 1]
    assert len(load_documents(lib.store)) == 10 and doctor.check(lib.store).ok
    _lib(index_keep_minutes=0).remove_under(folder / "note0005.txt")
    assert len(lib.store.table.list_versions()) == 1 < before


def test_a_reader_opened_before_another_process_compacted_is_not_told_the_index_is_damaged(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path / "docs", 40)
    _lib(index_keep_minutes=0).ingest([folder])
    reader = _lib()
    assert reader.store.search("robot", None, 3, "text")  # the handle is open at this version
    for i in range(40):  # every document changes, so compaction leaves no old file in use
        (folder / f"note{i:04d}.txt").write_text(
            f"A gripper note {i}." if i == 1 else f"Changed note {i}."
        )
    _lib(index_keep_minutes=0).ingest([folder])  # another writer compacts: old files are gone
    assert len(reader.sources()) == 40
    hits = reader.store.search("gripper", None, 3, "text")
    assert hits and hits[0].chunk.source.endswith("note0001.txt")
