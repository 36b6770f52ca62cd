"""A full disk, an unreadable index file, a file where a folder
should be, a config.toml too deep or a folder, a misspelt variable: one line each naming the
path or name and the fix, exit 1; and after a full disk the next ingest, even with every
file unchanged, writes the document list and the seal the stopped run could not.

The real CLI runs in-process with the fake embedder (as in test_faults.py)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.fakes import FakeEmbedder

# what LanceDB raises when a write meets a full disk (its text, Rust paths and all)
ENOSPC_TEXT = (
    "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to write file: "
    "No space left on device (os error 28), /root/.cargo/registry/src/lance-0.30/src/"
    "encodings/structural.rs:412:9"
)
RAW = ("Traceback", "unexpected error", "lance error", ".rs:", "RecursionError")


@pytest.fixture(autouse=True)
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    from localcrag.ingest import library

    monkeypatch.setattr(library, "load_embedder", lambda *a, **k: FakeEmbedder())


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from localcrag.cli.main import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line(err: str, *names: str) -> str:
    """The single ``localcrag:`` line, no traceback or raw error text; it names each of ``names``."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("localcrag: "), err
    assert not any(r in lines[0] for r in RAW), err
    for name in names:
        assert name in lines[0], (name, err)
    return lines[0]


def _docs(folder: Path, n: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"note{i}.txt").write_text(f"Note {i}: the robot arm number {i} is calibrated.\n")
    return folder


# --- case 15: a full disk ------------------------------------------------------------------


def _full_at(where: str, mp: pytest.MonkeyPatch) -> None:
    """Make the disk 'fill' at one point of an ingest."""
    from localcrag.ingest import library, sidecar, store

    real_write = sidecar.write

    def no_space(*_a: object, **_k: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "rows":  # the second document's commit fails, and nothing small can be written
        real_rows, calls = store.arrow_rows, [0]

        def rows(*a, **k):  # noqa: ANN002, ANN003, ANN202
            calls[0] += 1
            if calls[0] > 1:
                raise RuntimeError(ENOSPC_TEXT)
            return real_rows(*a, **k)

        mp.setattr(library, "EMBED_BATCH_CHUNKS", 1)  # a commit per document
        mp.setattr(store, "arrow_rows", rows)
        mp.setattr(sidecar, "write", no_space)
    elif where == "compaction":
        from lancedb.table import LanceTable

        def optimize(*_a: object, **_k: object) -> None:
            raise RuntimeError(ENOSPC_TEXT)

        mp.setattr(LanceTable, "optimize", optimize)
    else:  # the document list

        def write(path: Path, body: object) -> None:
            if path.name.endswith(".documents.json"):
                no_space()
            real_write(path, body)

        mp.setattr(sidecar, "write", write)


@pytest.mark.parametrize("where", ["rows", "compaction", "document list"])
def test_a_full_disk_is_one_line_and_the_next_ingest_writes_the_list_and_seal(
    where: str,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    docs = _docs(tmp_path / "docs")
    with monkeypatch.context() as mp:
        _full_at(where, mp)
        code, _, err = _run(capsys, "ingest", "-q", str(docs))
    assert code == 1, err
    _one_line(err, f"the disk holding {isolated_home / 'index'} is full", "free some space")
    code, out, err = _run(capsys, "ingest", "-q", str(docs))  # space freed: the same command again
    committed = 1 if where == "rows" else 3  # kept: only the rest is indexed
    assert code == 0 and f"indexed {3 - committed}, unchanged {committed}" in out, out + err
    from localcrag.ingest import sidecar

    index = isolated_home / "index"
    found = sorted(index.glob("*.documents.json")) + sorted(index.glob("*.seal.json"))
    assert len(found) == 2, f"document list and seal not written: {found}"
    (listed, _), (sealed, _) = map(sidecar.read, found)
    assert len(listed) == 3 and sealed["files"], (listed, sealed)
    code, out, err = _run(capsys, "doctor")
    assert code == 0 and out.rstrip().endswith("the index is healthy"), out + err
    code, out, _ = _run(capsys, "ingest", "-q", str(docs))  # recorded now: unchanged
    assert code == 0 and "indexed 0, unchanged 3" in out, out


def test_the_file_stat_cache_is_saved_only_after_the_list_and_seal(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file recorded in the cache is taken as its recorded hash without being read: that
    record must not exist for a run whose document list was never written."""
    from localcrag.ingest import filestat
    from localcrag.ingest.faults import DiskFull
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    saved: list[set[str]] = []
    monkeypatch.setattr(filestat.FileStats, "save", lambda self, keep: saved.append(keep))
    docs = _docs(tmp_path / "docs")
    with monkeypatch.context() as mp:
        _full_at("document list", mp)
        with pytest.raises(DiskFull):
            Library(Settings.load()).ingest([docs])
    assert saved == []
    Library(Settings.load()).ingest([docs])
    assert len(saved) == 1 and len(saved[0]) == 3


def test_an_os_error_no_layer_explained_is_still_one_line_naming_the_file() -> None:
    from localcrag.errors import describe_error

    line, _ = describe_error(RuntimeError("x").with_traceback(None))
    assert line.startswith("unexpected error")  # anything else stays as it was
    full = OSError(errno.ENOSPC, "No space left on device", "/data/index/t.documents.json.tmp")
    assert describe_error(full)[0].startswith("/data/index/t.documents.json.tmp: the disk is full")
    quota = OSError(errno.EDQUOT, "Disk quota exceeded", "/data/x")
    assert "free some space" in describe_error(quota)[0]
    denied = PermissionError(errno.EACCES, "Permission denied", "/data/index/writer.lock")
    assert describe_error(denied)[0].startswith("/data/index/writer.lock: permission denied")


# --- case 16 (a): an index file that cannot be read ------------------------------------------


def _indexed(capsys: pytest.CaptureFixture[str], tmp_path: Path, home: Path) -> Path:
    """Index three notes; the largest data file of the table."""
    assert _run(capsys, "ingest", str(_docs(tmp_path / "docs")))[0] == 0
    return max((home / "index").glob("*.lance/data/*.lance"), key=lambda p: p.stat().st_size)


DENIED_TEXT = (  # as LanceDB 0.40 words it (measured with a mode-000 data file, as another user)
    "lance error: LanceError(IO): Generic N/A error: LanceError(IO): Generic LocalFileSystem "
    "error: Unable to open file {path}: Permission denied (os error 13), /rustc/2d8144b/library/"
    "core/src/result.rs:1896:29"
)


def _deny(mp: pytest.MonkeyPatch, victim: Path) -> None:
    """Make ``victim`` unreadable as a non-owner finds it (tests run as root, where chmod
    stops nothing): Python's opens raise PermissionError, LanceDB's reads its error text."""
    import builtins

    import lancedb.table

    real_open = builtins.open

    def open_(file, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        if Path(os.fspath(file)) == victim if isinstance(file, (str, os.PathLike)) else False:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(file))
        return real_open(file, *a, **k)

    def denied(*_a: object, **_k: object) -> None:
        raise RuntimeError(DENIED_TEXT.format(path=victim))

    mp.setattr(builtins, "open", open_)
    mp.setattr(Path, "open", lambda self, *a, **k: open_(self, *a, **k))
    for name in ("to_arrow", "count_rows", "search"):
        mp.setattr(lancedb.table.LanceTable, name, denied)


@pytest.mark.parametrize(
    "command", [["sources"], ["search", "robot"], ["doctor"], ["doctor", "--repair"]]
)
def test_an_unreadable_index_file_is_named_and_never_called_searchable(
    command: list[str],
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    victim = _indexed(capsys, tmp_path, isolated_home)
    with monkeypatch.context() as mp:
        _deny(mp, victim)
        code, _, err = _run(capsys, *command)
    assert code == 1, err
    line = _one_line(err, str(victim), "permission denied", "run localcrag as the user who owns it")
    assert "searching and asking still work" not in line
    code, out, err = _run(capsys, "doctor")  # nothing was changed by the refusal
    assert code == 0, out + err


def _reachable_by_others(path: Path) -> bool:
    """Can another user reach ``path`` (every folder above it searchable by others)? A
    checkout under ``mktemp -d`` (mode 700) is not: the other user cannot import the code."""
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root to run a command as another user (setpriv)",
)
@pytest.mark.skipif(
    not (_reachable_by_others(REPO) and _reachable_by_others(Path(sys.prefix))),
    reason="the checkout or its virtual environment is in a folder other users cannot enter",
)
def test_a_really_unreadable_index_file_as_another_user(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same with real permissions: the index belongs to user 65534 and one data file is
    mode 000; `sources` and `doctor` run as that user."""
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="lc-perm-"))
    try:
        os.environ["LOCALCRAG_HOME"] = str(home)
        victim = _indexed(capsys, tmp_path, home)
        for p in [home, *home.rglob("*")]:
            os.chown(p, 65534, 65534)
        victim.chmod(0)
        cli = (
            "import sys\nfrom localcrag.ingest import library\nfrom tests.support.fakes import FakeEmbedder\n"
            "library.load_embedder = lambda *a, **k: FakeEmbedder()\n"
            "from localcrag.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
        )
        env = {"PATH": os.environ.get("PATH", ""), "LOCALCRAG_HOME": str(home), "HOME": str(home)}
        for command in (["sources"], ["doctor"]):
            out = subprocess.run(
                ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable]
                + ["-c", cli, *command],
                capture_output=True,
                text=True,
                cwd=REPO,
                env=env,
                timeout=300,
            )
            assert out.returncode == 1, out.stdout + out.stderr
            line = _one_line(out.stderr, "permission denied")
            assert "searching and asking still work" not in line and ".lance" in line, line
    finally:
        shutil.rmtree(home, ignore_errors=True)


# --- case 16 (b): a file where the index folder or the table folder should be -----------------


@pytest.mark.parametrize("which", ["index folder", "table folder"])
@pytest.mark.parametrize("command", [["doctor"], ["doctor", "--repair"], ["sources"], ["ingest"]])
def test_a_file_where_a_folder_should_be_is_named(
    which: str,
    command: list[str],
    tmp_path: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    docs = _docs(tmp_path / "docs")
    assert _run(capsys, "ingest", str(docs))[0] == 0
    index = isolated_home / "index"
    folder = index if which == "index folder" else next(index.glob("*.lance"))
    shutil.move(folder, tmp_path / "moved")
    folder.write_text("not a folder\n")
    args = [*command, "-q", str(docs)] if command == ["ingest"] else command
    code, out, err = _run(capsys, *args)
    assert code == 1 and "healthy" not in out, out + err
    _one_line(
        err, str(folder), "is a file where a folder of the index should be", "move that file away"
    )


# --- case 16 (c, d): config.toml too deep, or a folder -----------------------------------------


def test_a_config_nested_too_deeply_is_one_line_naming_it(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / "config.toml").write_text("a = " + "[" * 100_000, encoding="utf-8")
    code, _, err = _run(capsys, "sources")
    assert code == 1
    _one_line(
        err, str(isolated_home / "config.toml"), "nested too deeply", "fix or delete the file"
    )


def test_a_config_that_is_a_folder_is_one_line_naming_it(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / "config.toml").mkdir()
    code, out, err = _run(capsys, "sources")
    assert code == 1, out + err
    _one_line(err, str(isolated_home / "config.toml"), "is not a file")


# --- case 16 (e): a misspelt variable --------------------------------------------------------


def test_a_misspelt_variable_is_one_line_naming_the_real_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOCALCRAG_WEB__OFLINE", "true")
    code, _, err = _run(capsys, "sources")
    assert code == 1
    _one_line(err, "LOCALCRAG_WEB__OFLINE", "did you mean LOCALCRAG_WEB__OFFLINE?")
    monkeypatch.delenv("LOCALCRAG_WEB__OFLINE")
    monkeypatch.setenv("LOCALCRAG_TOPK", "3")  # the flat spelling, misspelt
    _one_line(_run(capsys, "sources")[2], "LOCALCRAG_TOPK", "LOCALCRAG_TOP_K")


def test_every_variable_the_project_sets_is_still_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables the code, tests, bench, scripts, Makefile and CI name (grep) all load."""
    import re

    from localcrag.settings import Settings
    from localcrag.settings.sources import check_env

    text = ""
    for top in ("localcrag", "tests", "bench", "scripts", ".ci"):
        for p in (REPO / top).rglob("*"):
            if p.is_file() and p.suffix in ("", ".py", ".sh", ".toml", ".md", ".yml"):
                text += p.read_text(encoding="utf-8", errors="replace")
    text += (REPO / "Makefile").read_text(encoding="utf-8")
    names = set(re.findall(r"\bLOCALCRAG_[A-Z0-9]+(?:_[A-Z0-9]+)*(?:__[A-Z0-9_]+)?\b", text))
    names -= {"LOCALCRAG_WEB__OFLINE", "LOCALCRAG_TOPK"}  # the misspellings above
    assert {"LOCALCRAG_HOME", "LOCALCRAG_DEBUG", "LOCALCRAG_TOP_K"} <= names
    check_env(Settings, dict.fromkeys(names, "1"))  # raises on the first unknown one
