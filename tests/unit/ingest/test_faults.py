"""Fault injection: every file kind under the data home x every fault.

For each case a pristine home (index built by two ingests, the vector cache saved, a settings
file, a conversation) is copied, one file is damaged, and the real CLI (in-process, with the
fake embedder, grader and generator) is run:

* ``ask``, ``search`` and ``sources`` either refuse with one line naming the damage and the fix
  (REFUSE), or answer exactly as from the pristine copy (ANSWER: the file is a cache that is
  not believed when damaged and is rebuilt, or is not read by them); never a traceback, never
  "unexpected error", never an answer from damaged rows;
* ``doctor`` names the damage (exit 1), or finds the index healthy where the commands already
  rebuilt what was damaged; it is never healthy after a command refused;
* ``doctor --repair`` ends healthy, and the document list and chunk count equal the pristine
  copy's (0 documents lost).

The table says what each kind is and what is expected of it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

REFUSE, ANSWER = "refuse", "answer"
FAULTS = ("delete", "truncate", "zero", "flip")
QUESTION = "Which robot arm number 7 is calibrated?"


def _newest(paths: list[Path]) -> Path:
    return max(paths, key=lambda p: (p.stat().st_mtime_ns, p.name))


def _largest(paths: list[Path]) -> Path:
    return max(paths, key=lambda p: (p.stat().st_size, p.name))


def _newest_manifest(paths: list[Path]) -> Path:
    from localcrag.ingest.seal import version_of

    return max(paths, key=lambda p: version_of(p.name) or -1)


def _index_file(kind: str) -> Callable[[list[Path]], Path]:
    """The largest file of the newest derived index of a kind ("fts" or "source")."""

    def pick(paths: list[Path]) -> Path:
        from tests.support.fakes import index_dirs

        own = set(index_dirs(paths[0].parents[2], kind))
        newest_index = _newest([p.parent for p in paths if p.parent in own])
        return _largest([p for p in paths if p.parent == newest_index])

    return pick


# kind: (glob under the home, which match, commands' expected behaviour, why)
KINDS: dict[str, tuple[str, Callable[[list[Path]], Path], str, str]] = {
    "data file": (
        "index/*.lance/data/*.lance",
        _largest,
        REFUSE,
        "the rows: refused at open (seal) or at read; repair restores an older version or rebuilds",
    ),
    "newest manifest": (
        "index/*.lance/_versions/*.manifest",
        _newest_manifest,
        REFUSE,
        "a lost or unreadable newest version: refused; repair sets it aside, restores the previous",
    ),
    "version hint": (
        "index/*.lance/_versions/latest_version_hint.json",
        _largest,
        ANSWER,
        "only a hint: Lance lists _versions/ when it is bad and rewrites it on the next commit",
    ),
    "transaction": (
        "index/*.lance/_transactions/*.txn",
        _newest,
        ANSWER,
        "never read outside concurrent commits: answers stand; doctor names it, repair sets it aside",
    ),
    "deletion file": (
        "index/*.lance/_deletions/*.arrow",
        _newest,
        REFUSE,
        "which rows are deleted: refused; repair restores an older version",
    ),
    "full-text index": (
        "index/*.lance/_indices/*/*",
        _index_file("fts"),
        ANSWER,
        "derived from the rows: rebuilt on the first text search (doctor --repair also rebuilds it)",
    ),
    "source index": (
        "index/*.lance/_indices/*/*",
        _index_file("source"),
        ANSWER,
        "derived from the rows: rebuilt as the table opens (a scope's prefilter reads it)",
    ),
    "vector cache codes": (
        "index/*.vcache/seg-*/q8.npy",
        _largest,
        ANSWER,
        "a cache: not believed when its files differ from its manifest, rebuilt from the table",
    ),
    "vector cache manifest": (
        "index/*.vcache/manifest.json",
        _largest,
        ANSWER,
        "checksummed: a damaged one is ignored and the cache rebuilt",
    ),
    "file-stat cache": (
        "index/*.filestat.json",
        _largest,
        ANSWER,
        "checksummed: a damaged one is not believed (files are hashed); doctor names it",
    ),
    "document list": (
        "index/*.documents.json",
        _largest,
        ANSWER,
        "read only by doctor: it names it and repair writes it again from the table",
    ),
    "seal": (
        "index/*.seal.json",
        _largest,
        ANSWER,
        "the record of the files: doctor names it, repair writes it again",
    ),
    "writer lock": (
        "index/writer.lock",
        _largest,
        ANSWER,
        "holds a pid only; rewritten by every writer",
    ),
    "change stamp": (
        "index/changed.stamp",
        _largest,
        ANSWER,
        "a timestamp readers poll; rewritten by every writer",
    ),
}
CASES = [(k, f) for k in KINDS for f in FAULTS]


def damage(path: Path, fault: str, seed: int = 27) -> None:
    rng = random.Random(seed)
    data = path.read_bytes()
    if fault == "delete":
        path.unlink()
    elif fault == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif fault == "zero":  # one 4 KB block (the whole file when smaller)
        at = rng.randrange(0, len(data) - 4096 + 1) if len(data) > 4096 else 0
        path.write_bytes(data[:at] + b"\0" * min(4096, len(data)) + data[at + 4096 :])
    elif fault == "flip":  # 16 bytes, each XORed with a random non-zero byte
        b = bytearray(data)
        for _ in range(16):
            b[rng.randrange(len(b))] ^= rng.randrange(1, 256)
        path.write_bytes(bytes(b))
    else:
        raise ValueError(fault)


@pytest.fixture(autouse=True)
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real CLI with the fake embedder, grader and generator; the vector cache saved at
    any size (so it exists to be damaged)."""
    from localcrag.crag import pipeline
    from localcrag.ingest import library, vcache

    real = pipeline.Pipeline
    monkeypatch.setattr(library, "load_embedder", lambda *a, **k: FakeEmbedder())
    monkeypatch.setattr(vcache, "SAVE_MIN_ROWS", 0)
    monkeypatch.setattr(
        pipeline,
        "Pipeline",
        lambda settings: real(
            settings,
            grader=FakeGrader(),
            generator=FakeGenerator("Robot arm number 7 is calibrated [1]."),
        ),
    )


def _docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(40):
        (folder / f"note{i:02d}.txt").write_text(  # no two chunks alike: no ties in any ranking
            "".join(
                f"Note {i}, line {j}. The robot arm number {i} is calibrated every {i + j + 2} days "
                f"by shift {j}. "
                for j in range(12)
            )
            + f"\n\nSafety rule {i}: keep {i + 1} metres from the gripper while it moves.\n"
        )
    return folder


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from localcrag.cli.main import main
    from localcrag.history import History, Turn

    mp = pytest.MonkeyPatch()
    home = tmp_path_factory.mktemp("pristine")
    mp.setenv("LOCALCRAG_HOME", str(home))
    from localcrag.ingest import library, vcache

    mp.setattr(library, "load_embedder", lambda *a, **k: FakeEmbedder())
    mp.setattr(vcache, "SAVE_MIN_ROWS", 0)
    from localcrag.crag import pipeline

    real = pipeline.Pipeline
    mp.setattr(
        pipeline,
        "Pipeline",
        lambda settings: real(
            settings,
            grader=FakeGrader(),
            generator=FakeGenerator("Robot arm number 7 is calibrated [1]."),
        ),
    )
    try:
        docs = _docs(tmp_path_factory.mktemp("docs"))
        (home / "config.toml").write_text(
            'top_k = 5\nanswer_style = "extractive"\n', encoding="utf-8"
        )
        assert main(["ingest", str(docs)]) == 0
        (docs / "note03.txt").write_text(
            "Note 3 was rewritten: the welding robot needs a new torch.\n"
        )
        assert main(["ingest", str(docs)]) == 0  # a second version, a deletion file
        from localcrag.ingest.library import Library
        from localcrag.settings import Settings

        lib = Library(Settings.load())
        lib.store.search("robot", FakeEmbedder().embed(["robot"])[0], 3)  # saves the vector cache
        history = History(Settings.load().history_dir)
        conv = history.create("robots")
        from localcrag.types import Action, Answer

        history.append(
            conv.id,
            Turn.from_answer(Answer("What is calibrated?", "The robot arm.", (), Action.CORRECT)),
        )
        sources = {s.source: s.chunks for s in lib.sources()}
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["search", QUESTION, "--json", "-k", "5"]) == 0
        hits = [r["chunk_id"] for r in json.loads(buf.getvalue())["results"]]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["ask", QUESTION, "--offline"]) == 0
        return {
            "home": home,
            "docs": docs,
            "sources": sources,
            "count": lib.count(),
            "hits": hits,
            "ask": buf.getvalue(),
        }
    finally:
        mp.undo()


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from localcrag.cli.main import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line_naming_damage(err: str, what: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"{what}: {err!r}"
    assert lines[0].startswith("localcrag: ") and "damaged" in lines[0], f"{what}: {err!r}"
    assert "doctor --repair" in lines[0], f"{what}: {err!r}"


def _clean(text: str) -> None:
    assert (
        "Traceback" not in text and "unexpected error" not in text and "lance error" not in text
    ), text


def _copy(pristine: dict, home: Path) -> None:
    shutil.copytree(pristine["home"], home, dirs_exist_ok=True)


@pytest.mark.parametrize(
    ("kind", "fault"), CASES, ids=[f"{k}-{f}".replace(" ", "_") for k, f in CASES]
)
def test_damage_is_named_and_repaired(
    kind: str, fault: str, pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pattern, pick, expect, _why = KINDS[kind]
    _copy(pristine, isolated_home)
    matches = sorted(isolated_home.glob(pattern))
    assert matches, f"the pristine home has no {kind} ({pattern})"
    target = pick(matches)
    damage(target, fault)

    results = {
        "ask": _run(capsys, "ask", QUESTION, "--offline"),
        "search": _run(capsys, "search", QUESTION, "--json", "-k", "5"),
        "sources": _run(capsys, "sources", "--json"),
    }
    for name, (code, out, err) in results.items():
        _clean(out + err)
        if expect == REFUSE:
            assert code == 1, f"{name} answered from a damaged index: {out[:300]!r} {err!r}"
            _one_line_naming_damage(err, name)
        else:
            assert code == 0, f"{name}: {err!r}"
    if expect == ANSWER:  # the pristine answers: nothing read from damaged bytes
        _same_hits(
            json.loads(results["search"][1])["results"],
            pristine["hits"],
            exact=kind != "full-text index",
        )
        assert {
            s["source"]: s["chunks"] for s in json.loads(results["sources"][1])["sources"]
        } == pristine["sources"]
        if kind != "full-text index":
            assert results["ask"][1] == pristine["ask"]

    code, out, err = _run(capsys, "doctor")
    _clean(out + err)
    assert (code == 0) == ("✗" not in out), (
        out
    )  # (a cache the commands above rebuilt is healthy now)

    code, out, err = _run(capsys, "doctor", "--repair")
    _clean(out + err)
    assert code == 0 and out.rstrip().endswith("the index is healthy"), out + err
    assert "could not recover" not in out
    code, out, err = _run(capsys, "doctor")
    assert code == 0, out
    code, out, err = _run(capsys, "sources", "--json")
    assert code == 0, err
    assert {s["source"]: s["chunks"] for s in json.loads(out)["sources"]} == pristine["sources"]
    code, out, err = _run(capsys, "search", QUESTION, "--json", "-k", "5")
    assert code == 0 and json.loads(out)["fallback"] is None, err
    _same_hits(json.loads(out)["results"], pristine["hits"], exact=False)


@pytest.mark.parametrize(
    ("kind", "fault"), CASES, ids=[f"{k}-{f}".replace(" ", "_") for k, f in CASES]
)
def test_doctor_names_every_damaged_file(
    kind: str, fault: str, pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run first, `doctor` names the damage in every case, the harmless files too (a hint,
    a cache, the lock, the stamp); the one exception: a writer lock cut in half still holds
    digits, a pid as good as any (nothing reads it but the next writer, who rewrites it)."""
    pattern, pick, _expect, _why = KINDS[kind]
    _copy(pristine, isolated_home)
    damage(pick(sorted(isolated_home.glob(pattern))), fault)
    code, out, err = _run(capsys, "doctor")
    _clean(out + err)
    if (kind, fault) == ("writer lock", "truncate"):
        assert code == 0, out
    else:
        assert code == 1 and "✗" in out, out


def _same_hits(results: list[dict], pristine: list[str], exact: bool) -> None:
    """The pristine top hits; in the pristine order unless the full-text index was rebuilt
    (fresh BM25 statistics may swap two chunks of one document)."""
    got = [r["chunk_id"] for r in results]
    assert (
        got == pristine if exact else (got[0] == pristine[0] and sorted(got) == sorted(pristine))
    ), got


# --- damage the seal cannot see (bit rot keeps size and mtime): the read paths check ------------


def _rot_vectors(home: Path, source: str) -> None:
    """Bit rot the seal cannot see: a document's vectors overwritten in place in its data file
    and the file's mtime put back; the vector cache gone (a process that has none reads them)."""
    import numpy as np

    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    lib = Library(Settings.load())
    rows = lib.store.table.search().where(f"source = '{source}'").select(["vector"]).to_arrow()
    old = np.asarray(rows["vector"][0].as_py(), np.float32).tobytes()
    rotten = [p for p in (home / "index").glob("*.lance/data/*.lance") if old in p.read_bytes()]
    assert rotten, "the vector's bytes were not found in any data file"
    for data in rotten:  # (a compacted file and the one an older version still holds)
        st = data.stat()
        data.write_bytes(
            data.read_bytes().replace(old, np.full(FakeEmbedder.dim, 7.0, np.float32).tobytes(), 1)
        )
        os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns))
    shutil.rmtree(next((home / "index").glob("*.vcache")))


def test_invalid_vectors_are_never_ranked_and_reindex_re_embeds_them(
    pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Vectors that read back invalid fail the search and ask with one line
    (never "Grading failed" then a confident decision); doctor names them; reindex re-embeds
    them although their files are unchanged."""
    _copy(pristine, isolated_home)
    _rot_vectors(isolated_home, str(pristine["docs"] / "note07.txt"))
    for args in (["search", QUESTION], ["ask", QUESTION, "--offline"]):
        code, out, err = _run(capsys, *args)
        _clean(out + err)
        assert code == 1 and "Decision" not in out, out
        _one_line_naming_damage(err, args[0])
        assert "invalid" in err
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and "empty or invalid in 1 document(s)" in out, out
    assert "file(s) changed after they were written" in out  # doctor hashes every file
    code, out, err = _run(capsys, "reindex")
    assert code == 0 and out.startswith("indexed 1, unchanged 39"), out + err
    code, out, _ = _run(capsys, "search", QUESTION, "--json", "-k", "5")
    assert code == 0
    code, out, _ = _run(
        capsys, "doctor", "--repair"
    )  # the rotten file an older version still holds
    assert code == 0 and out.rstrip().endswith("the index is healthy"), out
    code, out, _ = _run(capsys, "sources", "--json")
    assert {s["source"]: s["chunks"] for s in json.loads(out)["sources"]} == pristine["sources"]
    code, out, _ = _run(capsys, "search", QUESTION, "--json", "-k", "5")
    _same_hits(json.loads(out)["results"], pristine["hits"], exact=False)


def test_doctor_repair_re_embeds_invalid_vectors(
    pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    _copy(pristine, isolated_home)
    victim = str(pristine["docs"] / "note11.txt")
    Library(Settings.load()).store.table.update(
        where=f"source = '{victim}'", values={"vector": [0.0] * FakeEmbedder.dim}
    )
    code, out, _ = _run(capsys, "doctor", "--repair")
    assert code == 0 and "re-indexed 1 document(s)" in out and out.rstrip().endswith("healthy"), out
    code, out, _ = _run(capsys, "sources", "--json")
    assert {s["source"]: s["chunks"] for s in json.loads(out)["sources"]} == pristine["sources"]


# --- a full-text index missing after a full disk is rebuilt, not skipped -------


@pytest.mark.parametrize("how", ["dropped", "files deleted"])
def test_a_missing_full_text_index_is_rebuilt_on_the_first_search(
    how: str, pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    _copy(pristine, isolated_home)
    table = Library(Settings.load()).store.table
    if how == "dropped":  # the commit landed, the index update did not (ENOSPC in compaction)
        for index in table.list_indices():
            table.drop_index(index.name)
    else:
        for folder in (isolated_home / "index").glob("*.lance/_indices/*"):
            shutil.rmtree(folder)
    code, out, err = _run(capsys, "search", "welding torch", "--json")
    assert code == 0 and json.loads(out)["fallback"] is None, out + err
    assert json.loads(out)["results"][0]["source"].endswith("note03.txt")
    code, out, err = _run(capsys, "ask", QUESTION, "--offline")
    assert code == 0 and "vector only" not in err and out == pristine["ask"], out + err
    assert _run(capsys, "doctor")[0] == 0


def test_a_full_text_index_that_cannot_be_rebuilt_is_a_visible_fallback(
    pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another process holds the writer lock: no rebuild now, and the search says vector only."""
    from localcrag.ingest.lock import WriterLock
    from tests.support.fakes import index_dirs

    _copy(pristine, isolated_home)
    for folder in index_dirs(next((isolated_home / "index").glob("*.lance")), "fts"):
        shutil.rmtree(folder)
    lock = WriterLock(
        isolated_home / "index"
    )  # flock is per open file: this holder is "another process"
    lock.acquire()
    try:
        code, text, err = _run(capsys, "search", "welding torch", "--json")
    finally:
        lock.release()
    assert code == 0 and json.loads(text)["fallback"].startswith(
        "vector only: full-text search failed"
    ), err
    code, text, err = _run(capsys, "doctor", "--repair")
    assert (
        code == 0 and "rebuilt the full-text index" in text and text.rstrip().endswith("healthy")
    ), text


def test_a_lost_source_index_that_cannot_be_rebuilt_stops_with_one_line(
    pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The source index's files deleted while another process holds the writer lock: a
    scoped or per-document read cannot trust it, so commands stop with one line naming it
    and the repair (never "unexpected error"); doctor --repair rebuilds it."""
    from localcrag.ingest.lock import WriterLock
    from tests.support.fakes import index_dirs

    _copy(pristine, isolated_home)
    table_dir = next((isolated_home / "index").glob("*.lance"))
    for folder in index_dirs(table_dir, "source"):  # the current one, and older versions'
        shutil.rmtree(folder)
    lock = WriterLock(isolated_home / "index")
    lock.acquire()
    try:
        code, out, err = _run(capsys, "search", "welding torch")
    finally:
        lock.release()
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "source index" in lines[0], err
    assert "localcrag doctor --repair" in lines[0] and "unexpected" not in lines[0]
    code, out, err = _run(capsys, "search", "welding torch", "--json")  # lock free: rebuilt
    assert code == 0 and json.loads(out)["results"], out + err
    assert index_dirs(table_dir, "source") and _run(capsys, "doctor")[0] == 0


# --- the settings file and the history: the user's files, outside the index ----------------------


@pytest.mark.parametrize("fault", FAULTS)
def test_a_damaged_settings_file_is_one_line_naming_it(
    fault: str, pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Deleted: the defaults (a settings file is optional). Otherwise every command, doctor
    included, refuses with one line naming the file; nothing in the index is touched (the
    user fixes or deletes the file: doctor does not guess their settings)."""
    _copy(pristine, isolated_home)
    damage(isolated_home / "config.toml", fault)
    for args in (["ask", QUESTION, "--offline"], ["search", QUESTION], ["sources"], ["doctor"]):
        code, out, err = _run(capsys, *args)
        _clean(out + err)
        if fault == "delete":
            assert code == 0, err
        else:
            lines = err.strip().splitlines()
            assert code == 1 and len(lines) == 1 and "config.toml" in lines[0], err
    (isolated_home / "config.toml").unlink(missing_ok=True)
    code, out, _ = _run(capsys, "sources", "--json")
    assert {s["source"]: s["chunks"] for s in json.loads(out)["sources"]} == pristine["sources"]


@pytest.mark.parametrize("fault", ["truncate", "zero", "flip"])
def test_a_damaged_conversation_is_listed_as_damaged(
    fault: str, pristine: dict, isolated_home: Path
) -> None:
    from localcrag.history import History
    from localcrag.settings import Settings

    _copy(pristine, isolated_home)
    history = History(Settings.load().history_dir)
    conv = next(c for c in history.list() if c.title == "robots")  # beside the CLI's ask
    damage(history.root / f"{conv.id}.json", fault)
    good, bad = history.scan()
    assert conv.id not in {c.id for c in good}
    assert [d.id for d in bad] == [conv.id] and "damaged conversation" in bad[0].error


# --- documents lost to combined faults, an interrupted repair, a missing prune root,
# --- rot under a lost seal, damage under a running writer -----------------------------------


def _sources(capsys: pytest.CaptureFixture[str]) -> dict[str, int]:
    code, out, err = _run(capsys, "sources", "--json")
    assert code == 0, err
    return {s["source"]: s["chunks"] for s in json.loads(out)["sources"]}


def test_two_faults_at_once_lose_no_document(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A library built by one ingest loses its largest data file and its document list: the
    only older version is the empty one the table was created as. The repair still knows
    every document (the copy of the list beside the row digests) and brings each back from
    its file, rather than calling the empty version healthy."""
    docs = _docs(tmp_path / "docs")
    for extra in sorted(docs.iterdir())[10:]:  # one commit: one data file, nothing compacted
        extra.unlink()
    assert _run(capsys, "ingest", str(docs))[0] == 0
    before = _sources(capsys)
    assert len(before) == 10 and len(list(isolated_home.glob("index/*.lance/data/*"))) == 1
    _largest(sorted(isolated_home.glob("index/*.lance/data/*.lance"))).unlink()
    next(isolated_home.glob("index/*.documents.json")).unlink()
    code, out, err = _run(capsys, "doctor", "--repair")
    _clean(out + err)
    assert code == 0 and out.rstrip().endswith("the index is healthy"), out + err
    assert _sources(capsys) == before


def test_a_repair_that_cannot_bring_documents_back_says_so_and_fails(
    pristine: dict,
    isolated_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No version of the table reads, the document list and the file-stat cache are lost, and
    two source files are gone: the repair names the two (known from the copy of the list
    beside the row digests) and exits 1; it never calls a smaller library healthy."""
    _copy(pristine, isolated_home)
    for kind in ("documents.json", "filestat.json"):
        next(isolated_home.glob(f"index/*.{kind}")).unlink()
    for p in isolated_home.glob("index/*.lance/_versions/*.manifest"):
        damage(p, "zero")
    moved = [pristine["docs"] / "note05.txt", pristine["docs"] / "note06.txt"]
    try:
        for p in moved:
            p.rename(tmp_path / p.name)
        code, out, err = _run(capsys, "doctor", "--repair")
    finally:
        for p in moved:
            (tmp_path / p.name).rename(p)
    _clean(out + err)
    assert code == 1, out
    assert "the index is healthy" not in out
    assert "2 document(s) it held are lost" in out, out
    assert all(f"could not recover {p}" in out for p in moved), out
    assert len(_sources(capsys)) == len(pristine["sources"]) - 2


def test_a_repair_killed_midway_is_finished_by_the_next_and_blocks_everything_else(
    pristine: dict,
    isolated_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The repair dies after dropping what it could not read and before re-indexing (as under
    kill -9: no clean-up runs). Until a repair finishes, every command refuses with one line
    (an ingest of another folder would otherwise write a list of a near-empty library); the
    next repair restores every document."""
    from localcrag.ingest.library import Library

    _copy(pristine, isolated_home)
    for p in isolated_home.glob("index/*.lance/_versions/*.manifest"):
        damage(p, "zero")  # no version reads: the repair drops the table and rebuilds

    def killed(*a: object, **k: object) -> None:
        raise KeyboardInterrupt  # (not caught by the repair: nothing after it runs)

    with monkeypatch.context() as mp:
        mp.setattr(Library, "ingest", killed)
        code, _, _ = _run(capsys, "doctor", "--repair")
    assert code == 130
    assert list(isolated_home.glob("index/repair.pending.json"))
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("Another folder's only note about a forklift.\n")
    for args in (
        ["sources", "--json"],
        ["search", QUESTION],
        ["ask", QUESTION, "--offline"],
        ["ingest", str(other)],
    ):
        code, out, err = _run(capsys, *args)
        _clean(out + err)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code == 1 and len(lines) == 1, (args, out, err)
        assert "repair was interrupted" in lines[0] and "doctor --repair" in lines[0], err
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and "repair was interrupted" in out, out
    code, out, err = _run(capsys, "doctor", "--repair")
    _clean(out + err)
    assert code == 0 and out.rstrip().endswith("the index is healthy"), out + err
    assert _sources(capsys) == pristine["sources"]
    assert not list(isolated_home.glob("index/repair.pending.json"))


def test_prune_never_prunes_under_a_missing_root(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ingest --prune FOLDER` with FOLDER gone (an unplugged drive) removes nothing under it
    and says so; a single indexed file that was deleted from a folder still there is pruned."""
    drive = _docs(tmp_path / "drive" / "notes")
    assert _run(capsys, "ingest", str(drive))[0] == 0
    before = _sources(capsys)
    drive.rename(tmp_path / "unplugged")
    code, out, err = _run(capsys, "ingest", "--prune", str(drive))
    assert "removed 0" in out and "nothing indexed under it was removed" in err, out + err
    assert _sources(capsys) == before
    (tmp_path / "unplugged").rename(drive)
    (drive / "note01.txt").unlink()
    code, out, err = _run(capsys, "ingest", "--prune", str(drive / "note01.txt"))
    assert "removed 1" in out, out + err
    assert set(_sources(capsys)) == set(before) - {str(drive / "note01.txt")}


def _rot_text(home: Path, source: str, old: str, new: str) -> None:
    """Rows that differ from what was written, in a table that still reads: one passage of
    ``source`` changed behind the writer's back (a LanceDB update standing for bit rot, which
    in a compressed data page cannot be written byte for byte), the seal then lost."""
    from localcrag.ingest.library import Library
    from localcrag.ingest.rows import quote
    from localcrag.settings import Settings

    table = Library(Settings.load()).store.table
    rows = table.search().where(f"source = {quote(source)}").select(["chunk_id", "text"]).to_list()
    hit = next(r for r in rows if old in r["text"])
    table.update(
        where=f"chunk_id = {quote(hit['chunk_id'])}", values={"text": hit["text"].replace(old, new)}
    )
    next(home.glob("index/*.seal.json")).unlink()


def test_rot_with_a_lost_seal_is_found_by_the_row_digests_and_read_again(
    pristine: dict, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seal lost and a passage's letters changed in place: doctor names the document,
    the repair reads it again from its file instead of sealing the rotten rows, and search
    serves what the file says."""
    _copy(pristine, isolated_home)
    _rot_text(
        isolated_home,
        str(pristine["docs"] / "note09.txt"),
        "robot arm number 9 is calibrated",
        "robot arm number 9 is sabotaged!",
    )
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and "1 document(s) whose rows differ from what was written" in out, out
    assert "note09.txt" in out
    code, out, err = _run(capsys, "doctor", "--repair")
    _clean(out + err)
    assert code == 0 and out.rstrip().endswith("the index is healthy"), out + err
    assert "re-indexed 1 document(s)" in out, out
    assert _sources(capsys) == pristine["sources"]
    code, out, _ = _run(capsys, "search", "robot arm number 9 sabotaged", "--json", "-k", "20")
    assert code == 0 and "sabotaged!" not in out
    assert _run(capsys, "doctor")[0] == 0


def test_a_running_writer_never_seals_damage_made_after_it_opened_the_index(
    pristine: dict, isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A watcher (or the app) opened the table long ago; then a data file that only an older
    version reads (one the repair may need to go back to) is damaged, so the write itself
    reads nothing wrong. The write refuses with the damage named instead of sealing it, and
    `doctor` still says damaged."""
    from localcrag.ingest.faults import IndexDamaged
    from localcrag.ingest.library import Library
    from localcrag.ingest.watch import apply
    from localcrag.settings import Settings

    _copy(pristine, isolated_home)
    lib = Library(Settings.load(), embedder=FakeEmbedder())
    assert lib.count() == pristine["count"]  # opened (and checked against the seal)
    oldest = min(
        isolated_home.glob("index/*.lance/data/*.lance"), key=lambda p: p.stat().st_mtime_ns
    )
    damage(oldest, "flip")
    new = pristine["docs"] / "watched-new.txt"
    new.write_text("A new note about the paint shop's extractor fan.\n")
    try:
        with pytest.raises(IndexDamaged, match="doctor --repair"):
            apply(lib, [(1, str(new))], [pristine["docs"]])
    finally:
        new.unlink()
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and "changed after they were written" in out, out
