"""Issue 17 on real LanceDB tables: racing writers, compaction, a deleted data file,
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
from tests.fakes import FakeEmbedder

REPO = Path(__file__).resolve().parents[1]
RAW = ("lance error", "Traceback", ".rs:", "LanceError")

# The real CLI with the fake embedder (instant), so subprocess tests exercise main().
_CLI = """
import sys
from localcrag.ingest import library
from tests.fakes import FakeEmbedder
library.load_embedder = lambda *a, **k: FakeEmbedder()
from localcrag.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOCALCRAG_HOME": str(home)}
    return subprocess.run([sys.executable, "-c", _CLI, *args], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=300)


def _start(*args: str, home: Path) -> subprocess.Popen:
    env = {**os.environ, "LOCALCRAG_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-c", _CLI, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)


def _folder(path: Path, n: int) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (path / f"note{i:04d}.txt").write_text(f"Note {i}: the robot arm number {i} is calibrated.\n")
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
        assert out.returncode == 1 and f"another ingest is running (pid {os.getpid()})" in out.stderr
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
    assert _disk(lib.store.path) <= 3 * rows, (_disk(lib.store.path), rows)
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
    t.add(t.search().where("source LIKE '%note0002%'").limit(5).to_arrow())  # a racing commit's copy
    up = doctor.check(lib.store)
    assert not up.ok and len(up.duplicate_docs) == 1
    fixed = doctor.repair(lib)
    assert fixed.removed_duplicates == 1 and lib.count() == 10 and doctor.check(lib.store).ok
