"""Detection in strips (``ocr.detect``): a tall page is read whole, each line once, lines
lying across a strip edge included. Pictures are drawn at test time."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from localcrag.ingest import ocr
from tests.support.documents import canvas, lined_page

WIDTH, HEIGHT = 800, 3200  # multiples of 32 under MAX_PIXELS: detected at this very size


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _edges() -> list[int]:
    """Rows where a strip ends or the next begins, inside the page."""
    cuts = ocr.strips(HEIGHT, WIDTH)
    assert len(cuts) > 3, "the page must span several strips for this test to mean anything"
    return sorted({b for _, b in cuts[:-1]} | {t for t, _ in cuts[1:]})


def test_a_tall_page_is_read_whole_each_line_once_across_strip_edges() -> None:
    edges = _edges()
    centres = [e for e in edges if e < HEIGHT - 80][:8]  # every line lies across an edge
    img, lines = lined_page(centres)
    paras = ocr.recognise(img, 900.0)
    assert _words(" ".join(p for p, _ in paras)) == _words(" ".join(lines))


def test_strips_bound_the_detector_input_and_overlap_by_a_tall_line() -> None:
    cuts = ocr.strips(HEIGHT, WIDTH)
    assert cuts[0][0] == 0 and cuts[-1][1] == HEIGHT
    for (t0, b0), (t1, _) in zip(cuts, cuts[1:]):
        assert b0 - t1 >= ocr.DET_OVERLAP >= 64  # neighbours share a tall line's rows
        assert (b0 - t0) * WIDTH <= max(ocr.DET_STRIP_PIXELS, 3 * ocr.DET_OVERLAP * WIDTH)
    assert ocr.strips(320, WIDTH) == [(0, 320)]  # a short page is one pass


@pytest.mark.parametrize("ratios", [[1.0] * 20, [40.0, 2.0, 7.0, 39.0, 3.0]])
def test_recognition_batches_stay_under_the_pixel_budget(ratios: list[float]) -> None:
    batches = ocr.rec_batches(ratios)
    assert sorted(i for b in batches for i in b) == list(range(len(ratios)))
    for b in batches:
        widest = max(max(ratios[i] for i in b), 320 / 48)
        assert len(b) == 1 or len(b) * 48 * 48 * widest <= ocr.REC_PIXELS
        assert len(b) <= 6


def test_a_line_taller_than_the_overlap_is_read_once_from_its_pieces() -> None:
    """Cut in both strips (it spans the overlap and more): the pieces are joined."""
    width, height = 1024, 800
    (_, bottom), (top, _) = ocr.strips(height, width)[:2]
    img, draw, font = canvas(width, height, 160)
    draw.text((40, (top + bottom) // 2), "Tall heading", fill="black", font=font, anchor="lm")
    box = draw.textbbox((40, (top + bottom) // 2), "Tall heading", font=font, anchor="lm")
    assert box[1] < top and box[3] > bottom  # crosses both edges of the overlap
    paras = ocr.recognise(np.ascontiguousarray(np.asarray(img)[:, :, ::-1]), 900.0)
    assert [p for p, _ in paras] == ["Tall heading"]


def _box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def test_merge_keeps_a_line_whose_middle_row_each_strip_puts_on_the_other_side() -> None:
    """Two strips see one line a pixel apart, each with its middle in the other's rows:
    it is kept once (owning by middle row alone dropped it from both)."""
    owned = [(0.0, 100.0), (100.0, 200.0)]
    found = [(_box(10, 88, 300, 113), 0, False), (_box(10, 86, 300, 111), 1, False)]
    assert len(ocr._merge(found, owned)) == 1


def test_merge_takes_the_owning_strips_boxes_however_the_other_split_the_line() -> None:
    owned = [(0.0, 100.0), (100.0, 200.0)]
    found = [
        (_box(10, 60, 300, 80), 0, False),  # one box in the strip owning the line
        (_box(10, 61, 140, 81), 1, False),  # the next strip split it in two
        (_box(160, 61, 300, 81), 1, False),
        (_box(10, 150, 300, 170), 1, False),  # a line only the second strip saw
    ]
    kept = ocr._merge(found, owned)
    assert [tuple(b[0]) for b in kept] == [(10, 60), (10, 150)]


def test_a_paragraph_starts_where_the_line_pitch_jumps_though_the_gap_is_a_pixel_short() -> None:
    """AI_Information.pdf p. 10 at 96 dpi: "...across borders." then "Chapter 14: AI and
    Smart Cities" 11 px below, where 0.6 line heights is 12 px; a box a pixel taller read
    the two as one paragraph. The step between the rows (33 px, lines inside a paragraph
    19 px apart) says it."""
    from localcrag.ingest.ocr import layout

    def box(y0: float, y1: float, x1: float = 700) -> np.ndarray:
        return np.array([[93, y0], [x1, y0], [x1, y1], [93, y1]], dtype=np.float32)

    body = [
        (box(710 + 19 * i, 730 + 19 * i), f"Line {i} of the paragraph goes on") for i in range(3)
    ]
    lines = [
        *body,
        (box(767, 787, 153), "borders."),
        (box(798, 822, 399), "Chapter 14: AI and Smart Cities"),
        (box(837, 856), "AI enhances urban planning by analyzing data and more"),
        (box(856, 875), "and improving city services for everyone."),
    ]
    paras = [text for text, _ in layout(lines)]
    assert paras[0].endswith("borders.")
    assert any(p.startswith("Chapter 14: AI and Smart Cities") for p in paras), paras


def test_a_30000_px_wide_picture_is_detected_and_recognised_in_bounded_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RapidOCR's padding made a 30,000 x 200 picture 7,500 px high and the
    detector read it in strips as wide as the picture (2-3 GB). Every detector input is now
    one tile, every recogniser input one bounded piece, whatever the width."""
    eng = ocr.engine()
    det, seen = eng._load_det_model(), {"det": [], "rec": []}
    session, recognize = det.session, eng.recognize_txt

    def det_session(x: np.ndarray) -> Any:
        seen["det"].append(x.shape[-2] * x.shape[-1])
        return session(x)

    def rec(crops: list[np.ndarray]) -> Any:
        widest = max(48 * c.shape[1] / max(c.shape[0], 1) for c in crops)
        seen["rec"].append(len(crops) * 48 * max(widest, 320))
        return recognize(crops)

    monkeypatch.setattr(det, "session", det_session)
    monkeypatch.setattr(eng, "recognize_txt", rec)
    img, draw, font = canvas(30_000, 200, 40)
    for x in range(40, 29_000, 2_900):  # words all along: boxes across the tiles
        draw.text((x, 100), f"harbor {x} wall", fill="black", font=font, anchor="lm")
    ocr.recognise(np.ascontiguousarray(np.asarray(img)[:, :, ::-1]), 900.0)
    assert len(seen["det"]) > 10 and len(seen["rec"]) > 0
    assert max(seen["det"]) <= 3 * ocr.DET_OVERLAP * ocr.TILE_WIDTH  # one tile's pixels
    assert max(seen["rec"]) <= max(ocr.REC_PIXELS, 48 * 48 * ocr.REC_MAX_RATIO)


def test_tiles_of_a_wide_picture_are_bounded_and_cover_it() -> None:
    height, width = 224, 60_000
    cuts = ocr.tiles(height, width)
    assert len(cuts) > 20
    covered = np.zeros(width, bool)
    for top, bottom, left, right in cuts:
        assert (bottom - top) * (right - left) <= 3 * ocr.DET_OVERLAP * ocr.TILE_WIDTH
        covered[left:right] = True
    assert covered.all()
    lefts = sorted({(a, b) for _, _, a, b in cuts})
    for (_, b0), (a1, _) in zip(lefts, lefts[1:]):
        assert b0 - a1 >= ocr.DET_OVERLAP  # neighbours share columns
    assert ocr.tiles(HEIGHT, WIDTH) == [(t, b, 0, WIDTH) for t, b in ocr.strips(HEIGHT, WIDTH)]


def test_a_line_across_a_column_edge_is_read_once() -> None:
    """Words drawn over the edges between tile columns: each word read once, in order."""
    width, height = 4_200, 160
    img, draw, font = canvas(width, height, 30)
    text = "Ships pass the amber harbor wall near cedar fjord while birch grove ember iris sleep"
    draw.text((1_300, height // 2), text, fill="black", font=font, anchor="lm")
    box = draw.textbbox((1_300, height // 2), text, font=font, anchor="lm")
    edges = sorted({a for _, _, a, _ in ocr.tiles(512, 4_192)} - {0})
    assert box[0] < edges[0] and box[2] > edges[-1]  # the line crosses every column edge
    paras = ocr.recognise(np.ascontiguousarray(np.asarray(img)[:, :, ::-1]), 900.0)
    assert _words(" ".join(p for p, _ in paras)) == _words(text)


def test_a_long_line_is_cut_for_recognition_at_gaps_between_letters() -> None:
    """Blocks of ink 30 px wide, 12 px apart, a word gap every 5 blocks: every cut falls in
    a gap, pieces are at most REC_MAX_RATIO heights wide, and a word gap joins with a space."""
    h, w = 40, 6_000
    crop = np.full((h, w, 3), 255, np.uint8)
    x, n = 10, 0
    while x < w - 40:
        crop[8:32, x : x + 30] = 0
        n += 1
        x += 30 + (36 if n % 5 == 0 else 12)
    pieces = ocr.rec_pieces(crop)
    assert len(pieces) >= w // (ocr.REC_MAX_RATIO * h)
    assert sum(p.shape[1] for p, _ in pieces) == w
    at = 0
    for piece, gap in pieces[:-1]:
        assert piece.shape[1] <= ocr.REC_MAX_RATIO * h
        at += piece.shape[1]
        assert crop[:, at].min() == 255  # a cut through no ink
        assert gap == " "  # a word gap lies in every cut's window: the cut is there
    assert len(ocr.rec_pieces(crop[:, :1_000])) == 1  # a short line is one piece
