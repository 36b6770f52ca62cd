"""Reading order of OCR'd pages with columns (``ocr.layout``, ``ocr.cut_at_gutters``): the
pages are drawn at test time from known text (``bench/ocr_pages.py``) and read by OCR;
the rules on their own over boxes laid out by hand."""

from __future__ import annotations

import re

import numpy as np

from bench import ocr_pages
from localcrag.ingest import ocr

SLOW_OK = 900.0  # the page budget in tests: a shared machine may be many times slower than idle


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9%,]+", text.lower())


def _contiguous(part: str, whole: str) -> bool:
    """Whether ``part``'s words come out in one run, in order, in ``whole``."""
    a, b = _words(part), _words(whole)
    return any(b[i : i + len(a)] == a for i in range(len(b) - len(a) + 1))


def test_two_columns_come_out_one_after_the_other_under_their_title() -> None:
    """The gutter is a line high at its narrowest: there the detector joins a line of each
    column into one box, which is cut at the gutter."""
    img, _, _ = ocr_pages.two_columns()
    paras = ocr.recognise(img, SLOW_OK)
    text = " ".join(t for t, _ in paras)
    assert paras[0][0] == ocr_pages.TITLE, paras[0]  # across both columns: whole, and first
    left, right = " ".join(ocr_pages.LEFT), " ".join(ocr_pages.RIGHT)
    assert _contiguous(left, text) and _contiguous(right, text), text
    assert text.index("Glaciers") < text.index("Lighthouses")


def test_label_value_rows_of_two_panels_stay_one_line_each() -> None:
    img, _, _ = ocr_pages.panels()
    paras = [t for t, _ in ocr.recognise(img, SLOW_OK)]
    rows = [f"{name} {value}" for _, pairs in ocr_pages.PANELS for name, value in pairs]
    assert "The risk limit is set at: 5%" in rows
    assert all(row in paras for row in rows), paras  # each row a line of its own, nothing added
    assert (
        paras.index("Portfolio") < paras.index("Last review: 12 May 2026") < paras.index("Orders")
    )


def test_a_single_column_page_is_read_as_it_was() -> None:
    img, _, _ = ocr_pages.single()
    assert ocr.recognise(img, SLOW_OK) == [(p, None) for p in ocr_pages.SINGLE]


def _box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


def test_aligned_labels_stay_rows_and_a_heading_below_columns_follows_them() -> None:
    """A form whose values line up (a gap down every row) reads row by row; a bullet list
    whose markers are boxes of their own too. A heading under the left column, right above
    a line across the page, comes after the right column."""
    form = [
        (_box(40, 100 + 40 * i, 40 + 20 * len(k), 128 + 40 * i), k)
        for i, k in enumerate(["Name:", "Risk limit:", "Owner:", "Region:"])
    ] + [
        (_box(400, 100 + 40 * i, 520, 128 + 40 * i), v)
        for i, v in enumerate(["Ada", "5%", "Bo", "EU"])
    ]
    assert [t for t, _ in ocr.layout(form)] == ["Name: Ada Risk limit: 5% Owner: Bo Region: EU"]
    bullets = [(_box(40, 100 + 40 * i, 52, 128 + 40 * i), "•") for i in range(4)] + [
        (_box(80, 100 + 40 * i, 700, 128 + 40 * i), f"Item {i} of the list of things.")
        for i in range(4)
    ]
    assert ocr.layout(bullets) == [
        ("\n".join(f"• Item {i} of the list of things." for i in range(4)), None)
    ]
    columns = [
        *[(_box(40, 100 + 30 * i, 480, 126 + 30 * i), f"left line {i} goes on") for i in range(5)],
        *[
            (_box(520, 100 + 30 * i, 960, 126 + 30 * i), f"right line {i} goes on")
            for i in range(5)
        ],
        (_box(40, 270, 300, 296), "More Features"),
        (_box(40, 300, 960, 326), "A line across the whole page ends the columns."),
    ]
    text = " ".join(t for t, _ in ocr.layout(columns))
    assert text.index("left line 4") < text.index("right line 0") < text.index("right line 4")
    assert text.index("right line 4") < text.index("More Features") < text.index("A line across")


def test_a_box_the_detector_joined_across_the_gutter_is_cut_there_and_a_title_is_not() -> None:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(img)
    draw.rectangle((40, 20, 860, 44), fill="black")  # a title across both columns, no gap
    for i in range(5):
        y = 80 + 40 * i
        draw.rectangle((40, y, 420, y + 24), fill="black")
        draw.rectangle((450, y, 860, y + 24), fill="black")
    boxes = [_box(36, 16, 864, 48), _box(36, 156, 864, 188)]  # row 3: one box over both
    boxes += [
        _box(x0 - 4, 76 + 40 * i, x1 + 4, 108 + 40 * i)
        for i in (0, 1, 3, 4)
        for x0, x1 in ((40, 420), (450, 860))
    ]
    cut = ocr.cut_at_gutters(np.array(boxes), np.asarray(img)[:, :, ::-1])

    def spans(top: float) -> list[tuple[float, float]]:
        return sorted((float(b[:, 0].min()), float(b[:, 0].max())) for b in cut if b[0, 1] == top)

    assert len(cut) == len(boxes) + 1 and spans(16) == [(36, 864)]  # the title whole
    (l0, l1), (r0, r1) = spans(156)
    assert l0 == 36 and 420 <= l1 < 435 and 435 < r0 <= 450 and r1 == 864
