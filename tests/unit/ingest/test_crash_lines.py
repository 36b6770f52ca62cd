"""What used to crash (or mislead) is one line naming the file or setting and the fix:
symlink loops (given, or inside a folder), a file name with non-UTF-8 bytes (indexed),
a forged-size EPUB, doctor on an unreachable S3 store or one without a region, Pillow's
own warning for a large image, a 404 from the hub; and files created private under any umask."""

from __future__ import annotations

import os
import re
import stat
import struct
import warnings
import zipfile
from pathlib import Path

import pytest

from localcrag.cli.main import main
from tests.support.documents import epub


def _one_line(capsys: pytest.CaptureFixture, *words: str) -> str:
    err = capsys.readouterr().err
    # ingest's per-file progress lines ("[1/1] failed x.epub · ...", printed without a
    # terminal) are progress, not the message
    lines = [
        line for line in err.splitlines() if line.strip() and not re.match(r"\[\d+/\d+\] ", line)
    ]
    assert len(lines) == 1 and "unexpected error" not in err and "Traceback" not in err, err
    assert all(w in lines[0] for w in words), lines[0]
    return lines[0]


def test_a_symlink_loop_given_directly_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)
    assert main(["ingest", str(loop)]) == 1
    _one_line(capsys, "loop.txt", "symlink loop", "remove the link")


def test_links_that_lead_nowhere_in_a_folder_are_reported_and_a_non_utf8_name_is_indexed(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "robots.txt").write_text("Cobots work next to people in factories.\n")
    (folder / "self").symlink_to(folder / "self")  # a loop, whatever its name
    (folder / "gone.txt").symlink_to(folder / "missing.txt")
    odd = os.path.join(os.fsencode(folder), b"caf\xe9.txt")
    with open(odd, "wb") as fh:
        fh.write(b"The cafe sells coffee and cake every morning.\n")
    assert main(["ingest", str(folder)]) == 1  # two links failed, two files indexed
    out = capsys.readouterr()
    assert "indexed 2, unchanged 0, removed 0, failed 2" in out.out
    failed = sorted(line for line in out.err.splitlines() if line.startswith("failed:"))
    assert (
        len(failed) == 2
        and "gone.txt: broken symlink" in failed[0]
        and "self: symlink loop" in failed[1]
    )
    assert main(["search", "coffee and cake", "-k", "1"]) == 0
    assert "caf\\xe9.txt, p. 1" in capsys.readouterr().out  # named, undecodable byte escaped
    assert main(["sources"]) == 0 and "caf\\xe9.txt" in capsys.readouterr().out
    assert main(["ingest", str(folder)]) == 1  # the stored name leads back to the file
    assert "indexed 0, unchanged 2" in capsys.readouterr().out
    assert main(["reindex"]) == 0 and "unchanged 2" in capsys.readouterr().out
    assert main(["remove", os.fsdecode(odd)]) == 0 and "removed" in capsys.readouterr().out


def test_a_forged_size_epub_is_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    book = epub(
        tmp_path / "forged.epub", {"c1": "The lighthouse keeper is called Ada. " + "a" * 400_000}
    )
    data = bytearray(book.read_bytes())
    with zipfile.ZipFile(book) as z:
        real = z.getinfo("c1.xhtml").file_size
    for sig, at in (
        (b"PK\x03\x04", 22),
        (b"PK\x01\x02", 24),
    ):  # the uncompressed size, both records
        i = data.find(sig)
        while i >= 0:
            if struct.unpack_from("<I", data, i + at)[0] == real:
                struct.pack_into("<I", data, i + at, 1000)
            i = data.find(sig, i + 4)
    book.write_bytes(bytes(data))
    assert main(["ingest", str(book)]) == 1
    line = _one_line(capsys, "forged.epub", "zlib inflate error", "re-download")
    assert "(null)" not in line


def test_doctor_on_an_unreachable_store_and_without_a_region(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    for var in [v for v in os.environ if v.startswith("AWS_ENDPOINT_URL")]:
        monkeypatch.delenv(
            var
        )  # LanceDB prefers it to the endpoint below (test_shared_index sets it)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("LOCALCRAG_INDEX_URI", "s3://team-bucket/localcrag")
    monkeypatch.setenv(
        "LOCALCRAG_INDEX_STORAGE_OPTIONS",
        f'{{endpoint = "http://127.0.0.1:{port}", region = "us-east-1", allow_http = true}}',
    )
    assert main(["doctor"]) == 1
    _one_line(capsys, "s3://team-bucket/localcrag", "did not answer", "index_storage_options")
    # without a region (and no endpoint) Lance asks AWS for the bucket's region: never in a
    # test, so its error is raised by a stand-in for lancedb.connect
    import lancedb

    def no_region(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError(
            "lance error: LanceError(IO): Generic S3 error: Failed to resolve region "
            "for bucket 'team-bucket', aws.rs:319:13"
        )

    monkeypatch.setattr(lancedb, "connect", no_region)
    monkeypatch.delenv("LOCALCRAG_INDEX_STORAGE_OPTIONS")
    for argv in (["doctor"], ["sources"]):
        assert main(argv) == 1
        _one_line(capsys, "s3://team-bucket/localcrag", "no region", "AWS_REGION")


def test_a_large_image_is_our_one_line_not_pillows_warning(tmp_path: Path) -> None:
    from PIL import Image

    from localcrag.errors import BadDocument
    from localcrag.ingest.context import ReadContext
    from localcrag.ingest.limits import Limits
    from localcrag.ingest.ocr import read_image

    path = tmp_path / "poster.png"
    Image.new("L", (1100, 1000)).save(path)  # 1.1 M pixels: over 1 M, under Pillow's 2x refusal
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(BadDocument, match="poster.png.*max_image_pixels"):
            read_image(path, path.read_bytes(), ReadContext(Limits(max_image_pixels=1_000_000)))
    assert not [w for w in seen if "DecompressionBomb" in w.category.__name__], [
        str(w.message) for w in seen
    ]


def test_a_pull_that_gets_404_says_not_found(hub, capsys: pytest.CaptureFixture) -> None:
    from tests.support.fakehub import SPEC

    hub.plain_misses = True  # a bare 404, as from a mirror: no x-error-code for huggingface_hub
    assert main(["models", "pull", SPEC.replace("Q4_1", "Q8_0")]) == 1
    line = _one_line(capsys, "not found", "404", "check the repository and file name")
    assert "try again later" not in line


def test_files_are_private_under_umask_000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from localcrag.history import History, Turn
    from localcrag.settings import Settings
    from localcrag.types import Answer

    home = tmp_path / "fresh-home"  # created by localcrag
    monkeypatch.setenv("LOCALCRAG_HOME", str(home))
    doc = tmp_path / "a.txt"
    doc.write_text("Cobots work next to people in factories.\n")
    old = os.umask(0)
    try:
        assert main(["ingest", str(doc)]) == 0
        os.umask(0)  # each write below sets its mode itself
        Settings(top_k=4).save()
        history = History(Settings().history_dir)
        conv = history.create()
        history.append(conv.id, Turn.from_answer(Answer("q?", "a", (), None), ()))
        history.set_current(conv.id)
    finally:
        os.umask(old)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "config.toml" for p in files) and any(p.suffix == ".lance" for p in files)
    assert any(p.parent.name == Settings().history_dir.name for p in files)
    loose = {
        str(p.relative_to(home)): oct(stat.S_IMODE(p.stat().st_mode))
        for p in home.rglob("*")
        if stat.S_IMODE(p.stat().st_mode) & 0o077
    }
    assert loose == {}
