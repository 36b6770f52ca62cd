"""Ingestion end to end: real parsing, real LanceDB; fake embedder for speed, real one for integration."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support import REPO
from tests.support.fakes import FakeEmbedder


def _lib(**kw) -> Library:
    return Library(Settings(**kw), embedder=FakeEmbedder())


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _bad_files(folder: Path) -> dict[str, str]:
    """Bad inputs of every kind, and the word their error must contain."""
    import pymupdf

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf \x00\x01\x02")
    (folder / "empty.pdf").write_bytes(b"")
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret text")
    doc.save(
        folder / "encrypted.pdf",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="pw",
        owner_pw="pw",
    )
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 64), False)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(72, 72, 272, 272), pixmap=pix)
    doc.save(folder / "scanned.pdf")
    (folder / "latin1.txt").write_bytes(
        "caf\xe9 cr\xe8me br\xfbl\xe9e ".encode("latin-1") * 20 + bytes(range(128, 256))
    )
    return {
        "corrupt.pdf": "",
        "empty.pdf": "",
        "encrypted.pdf": "encrypt",
        "scanned.pdf": "scan",
        "latin1.txt": "",
    }


def test_incremental_change_prune_remove(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    a = _write(docs / "a.md", "# Apples\n\nApples grow on trees. They are red or green.\n")
    _write(docs / "sub" / "b.txt", "Bananas are yellow. Monkeys like them.\n")
    lib = _lib()
    r1 = lib.ingest([docs])
    assert sorted(Path(p).name for p in r1.indexed) == ["a.md", "b.txt"] and not r1.failed
    r2 = lib.ingest([docs])
    assert r2.indexed == [] and len(r2.unchanged) == 2 and r2.chunks == r1.chunks
    a.write_text("# Cherries\n\nCherries are small and dark red.\n", encoding="utf-8")
    r3 = lib.ingest([docs])
    assert [Path(p).name for p in r3.indexed] == ["a.md"]
    texts = " ".join(lib.store.all_texts())
    assert "Cherries" in texts and "Apples grow" not in texts
    (docs / "sub" / "b.txt").unlink()
    r4 = lib.ingest([docs], prune=True)
    assert [Path(p).name for p in r4.removed] == ["b.txt"]
    assert [Path(s.source).name for s in lib.sources()] == ["a.md"]
    assert lib.remove(a) > 0 and lib.count() == 0


def test_bad_files_each_get_one_line_and_good_files_are_indexed(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    expected = _bad_files(folder)
    for i in range(200):
        _write(folder / f"good{i:03d}.txt", f"Document number {i} talks about topic {i % 7}.\n")
    (folder / "notes.odt").write_bytes(b"PK\x03\x04")  # unsupported, inside a folder: skipped
    report = _lib().ingest([folder, tmp_path / "missing.pdf"])
    assert len(report.indexed) == 200
    failed = {Path(p).name: e for p, e in report.failed}
    assert set(failed) == set(expected) | {"missing.pdf"}
    for name, word in expected.items():
        assert name in failed[name] and "\n" not in failed[name]
        assert word in failed[name].lower(), failed[name]


def test_changed_embedder_uses_another_table(tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", "Some text about owls.\n")
    a = _lib()
    a.ingest([tmp_path / "a.txt"])
    b = _lib(chunk_tokens=48)
    assert (
        b.store.name != a.store.name and b.count() == 0 and a.store.name in b.store.other_tables()
    )
    assert b.previous_sources() == [str((tmp_path / "a.txt").resolve())]
    b.ingest([Path(p) for p in b.previous_sources()])
    assert b.count() > 0 and a.count() > 0  # the old table is left as it was, never mixed


def _cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "localcrag", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        cwd=REPO,
    )


@pytest.mark.slow
def test_cli_json_contract_real_embedder(ai_pdf: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"not a pdf")
    out = _cli("ingest", str(ai_pdf), str(bad), "--json")
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {
        "indexed", "unchanged", "removed", "failed", "warnings", "excluded", "chunks"
    }  # fmt: skip
    assert data["indexed"] == [str(ai_pdf)] and data["chunks"] > 20
    assert data["failed"][0]["path"] == str(bad) and "bad.pdf" in data["failed"][0]["error"]
    again = json.loads(_cli("ingest", str(ai_pdf), "--json").stdout)
    assert again["unchanged"] == [str(ai_pdf)] and again["chunks"] == data["chunks"]
    res = json.loads(_cli("search", "What is a cobot?", "-k", "3", "--json").stdout)
    assert res["query"] == "What is a cobot?" and len(res["results"]) == 3
    top = res["results"][0]
    assert (
        set(top) == {"chunk_id", "source", "page", "locator", "score", "text"}
        and top["locator"] is None
    )
    assert (
        top["source"] == str(ai_pdf)
        and "cobot" in " ".join(r["text"] for r in res["results"]).lower()
    )
    srcs = json.loads(_cli("sources", "--json").stdout)["sources"]
    assert srcs[0]["pages"] == 15 and srcs[0]["chunks"] == data["chunks"]


# The ingest process kills itself with SIGKILL from a timer thread started as its 3rd
# commit (of 128 one-chunk documents each) begins, so the kill always lands mid-ingest
# (before, inside or just after that merge_insert) however fast the machine is.
_KILL_MID_COMMIT = """
import os, signal, sys, threading
from localcrag.ingest import store
from localcrag.cli.main import main
original = store.LanceStore.replace_files
calls = [0]
def replace_files(self, *args, **kwargs):
    calls[0] += 1
    if calls[0] == int(sys.argv[2]):
        threading.Timer(0.001, os.kill, (os.getpid(), signal.SIGKILL)).start()
    return original(self, *args, **kwargs)
store.LanceStore.replace_files = replace_files
sys.exit(main(["ingest", sys.argv[1], "--json"]))
"""


@pytest.mark.slow
def test_sigkill_mid_ingest_keeps_index_readable(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    for i in range(400):
        _write(folder / f"doc{i:03d}.txt", f"Note {i}. " + "The quick brown fox jumps. " * 8)
    proc = subprocess.run(
        [sys.executable, "-c", _KILL_MID_COMMIT, str(folder), "3"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    partial = Library(Settings())
    n = partial.count()
    assert n in (256, 384), n  # the two commits before the kill survived, maybe the third
    assert all(s.chunks == 1 for s in partial.sources())  # no file half-written
    out = _cli("ingest", str(folder), "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["chunks"] == 400
    assert len(data["unchanged"]) == n and len(data["indexed"]) == 400 - n


def test_a_removed_document_is_gone_under_every_setting(tmp_path: Path) -> None:
    doc = _write(
        tmp_path / "notes.txt", "Cobots are collaborative robots. They work next to people."
    )
    other = _write(tmp_path / "keep.txt", "Tomatoes need sun and water.")
    old = _lib(chunk_tokens=48)  # an index built with other chunking settings
    old.ingest([doc, other])
    new = _lib(chunk_tokens=40)
    assert set(new.previous_sources()) == {str(doc.resolve()), str(other.resolve())}
    new.ingest([doc])
    assert new.remove(doc) > 0
    assert new.previous_sources() == [str(other.resolve())]  # not offered for re-indexing again
    back = _lib(chunk_tokens=48)  # switching the settings back opens that table again
    assert [s.source for s in back.sources()] == [str(other.resolve())]
