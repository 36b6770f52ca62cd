"""The OCR recogniser's int8 copy (provisioned into models/): found by the engine, and it
reads what the wheel's float32 model reads. Pictures are drawn at test time."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from localcrag.ingest import ocr
from tests.support.documents import lined_page


def test_the_int8_recogniser_reads_what_the_float32_one_reads(tmp_path: Path) -> None:
    img, lines = lined_page([60, 140, 220, 300, 380])
    wheel = ocr.recognise(img[:460], 60.0, 2)
    assert ocr.quantize_rec(tmp_path / ocr.REC_INT8).stat().st_size > 1_000_000
    copy = ocr.recognise(img[:460], 60.0, 2, tmp_path)
    assert (2, str(tmp_path / ocr.REC_INT8), False) in ocr._ENGINES  # the copy was used
    assert copy == wheel
    assert " ".join(t for t, _ in copy).split() == " ".join(lines).split()


def test_without_the_copy_the_wheel_model_reads(tmp_path: Path) -> None:
    img, lines = lined_page([60, 140])
    assert ocr.recognise(img[:220], 60.0, 2, tmp_path)  # an empty models/ folder
    assert (2, "", False) in ocr._ENGINES


def test_provisioning_makes_the_copy_once_and_a_failure_is_one_line(
    tmp_path: Path, monkeypatch
) -> None:
    from localcrag import provision

    made: list[Path] = []
    monkeypatch.setattr(ocr, "quantize_rec", lambda out: made.append(out) or out.write_bytes(b"x"))
    assert provision._quantize_ocr(tmp_path) == f"{tmp_path / ocr.REC_INT8}: ok"
    assert provision._quantize_ocr(tmp_path) == f"{tmp_path / ocr.REC_INT8}: ok"
    assert made == [tmp_path / ocr.REC_INT8]  # once

    def broken(out: Path) -> Path:
        raise RuntimeError("no space")

    monkeypatch.setattr(ocr, "quantize_rec", broken)
    line = provision._quantize_ocr(tmp_path / "other")
    assert "skipped (RuntimeError: no space; OCR runs the float32 model)" in line


def test_pages_read_side_by_side_read_as_one_at_a_time(tmp_path: Path) -> None:
    """An image-only PDF's pages go to one worker a core, each with its own single-threaded
    engine; the text of every page, the page order and the progress calls are those of a
    page-by-page read."""
    import pymupdf

    from localcrag.ingest.context import ReadContext
    from localcrag.ingest.limits import Limits

    pdf, alone = tmp_path / "scan.pdf", []
    with pymupdf.open() as out:
        for k in range(5):
            img, _ = lined_page([60 + 40 * k, 160 + 40 * k], height=400)
            alone.append(ocr.recognise(img, 60.0, 1))
            page = out.new_page(width=576, height=288)  # 800 x 400 px at 100 dpi
            rgb = np.ascontiguousarray(img[:, :, ::-1])
            pix = pymupdf.Pixmap(pymupdf.csRGB, 800, 400, rgb.tobytes(), False)
            page.insert_image(page.rect, pixmap=pix)
        out.save(pdf)
    seen: list[tuple[int, int]] = []
    ctx = ReadContext(Limits(), ocr_dpi=100, threads=2, on_page=lambda d, n: seen.append((d, n)))
    with pymupdf.open(pdf) as doc:
        pages, warnings = ocr.ocr_pdf_pages(pdf, doc, [1, 2, 3, 4, 5], ctx)
    assert list(pages) == [1, 2, 3, 4, 5] and not warnings
    assert [pages[n] for n in range(1, 6)] == alone
    assert seen == [(d, 5) for d in range(1, 6)]
    workers = {key[2] for key in ocr._ENGINES if key[0] == 1 and key[2] is not False}
    assert len(workers) == 2  # two page workers, each with its own engine
