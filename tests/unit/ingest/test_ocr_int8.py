"""The OCR recogniser's int8 copy (provisioned into models/): found by the engine, and it
reads what the wheel's float32 model reads. Pictures are drawn at test time."""

from __future__ import annotations

from pathlib import Path

from localcrag.ingest import ocr
from tests.support.documents import lined_page


def test_the_int8_recogniser_reads_what_the_float32_one_reads(tmp_path: Path) -> None:
    img, lines = lined_page([60, 140, 220, 300, 380])
    wheel = ocr.recognise(img[:460], 60.0, 2)
    assert ocr.quantize_rec(tmp_path / ocr.REC_INT8).stat().st_size > 1_000_000
    copy = ocr.recognise(img[:460], 60.0, 2, tmp_path)
    assert (2, str(tmp_path / ocr.REC_INT8)) in ocr._ENGINES  # the copy was used
    assert copy == wheel
    assert " ".join(t for t, _ in copy).split() == " ".join(lines).split()


def test_without_the_copy_the_wheel_model_reads(tmp_path: Path) -> None:
    img, lines = lined_page([60, 140])
    assert ocr.recognise(img[:220], 60.0, 2, tmp_path)  # an empty models/ folder
    assert (2, "") in ocr._ENGINES


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
