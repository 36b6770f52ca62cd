"""Pages drawn with Pillow (DejaVu Sans) from known text, for OCR's reading order: a
two-column article under a title across both columns, a two-panel application window of
label/value rows, and one column of prose; with the measures ``scripts/ocr_layout.py``
reports (tests/unit/ingest/test_ocr_layout.py reads the same pages). Each builder gives the picture
(BGR), the units whose text must come out contiguous, and the whole text in reading order.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import numpy as np

LEFT = [
    "Glaciers store about two thirds of the fresh water on Earth. They form where more snow "
    "falls in winter than melts in summer, year after year.",
    "The weight of the snow presses the lower layers into ice. Once the ice is thick enough "
    "it starts to flow downhill under its own weight.",
    "A valley glacier moves a few metres a day at most. Its surface cracks into crevasses "
    "where the bed below it is steep or uneven.",
]
RIGHT = [
    "Lighthouses guided ships along dangerous coasts for centuries. Each light has its own "
    "pattern of flashes so sailors can tell them apart.",
    "Early lamps burned whale oil and later kerosene. A Fresnel lens bends the light into a "
    "beam that can be seen many kilometres away.",
    "Most lighthouses today are automatic. Their keepers left long ago, and the buildings "
    "are often museums open to visitors in summer.",
]
TITLE = "Notes on Ice and Light: Two Short Essays"
PANELS = [
    (
        "Portfolio",
        [
            ("Account holder:", "Jane Smith"),
            ("The risk limit is set at:", "5%"),
            ("Open positions:", "14"),
            ("Cash balance:", "2,480 EUR"),
            ("Last review:", "12 May 2026"),
        ],
    ),
    (
        "Orders",
        [
            ("Pending orders:", "3"),
            ("Discrepancies:", "none found"),
            ("Filled today:", "27"),
            ("Largest order:", "900 shares"),
            ("Next settlement:", "Friday"),
        ],
    ),
]
SINGLE = LEFT + RIGHT[:2]


def _canvas(width: int, height: int) -> tuple[Any, Any, Any, Any]:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (width, height), "white")
    body = ImageFont.truetype("DejaVuSans.ttf", 22)
    big = ImageFont.truetype("DejaVuSans.ttf", 36)
    return img, ImageDraw.Draw(img), body, big


def bgr(img: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(img)[:, :, ::-1])


def _column(draw: Any, font: Any, x: int, y: int, paras: list[str], chars: int) -> int:
    for para in paras:
        for line in textwrap.wrap(para, chars):
            draw.text((x, y), line, fill="black", font=font)
            y += 32
        y += 20
    return y


def two_columns() -> tuple[np.ndarray, list[str], str]:
    """A title over two columns of prose, the gutter 30 px (a line's height) at its
    narrowest."""
    img, draw, body, big = _canvas(1220, 600)
    draw.text((60, 40), TITLE, fill="black", font=big)
    _column(draw, body, 60, 130, LEFT, 44)
    _column(draw, body, 590, 130, RIGHT, 44)
    sentences = [TITLE] + [s for p in LEFT + RIGHT for s in _sentences(p)]
    return bgr(img), sentences, " ".join([TITLE, *LEFT, *RIGHT])


def panels() -> tuple[np.ndarray, list[str], str]:
    """An application window of two panels, each a title over label/value rows."""
    img, draw, body, _ = _canvas(1280, 520)
    units, ref = [], []
    for k, (title, pairs) in enumerate(PANELS):
        x = 40 + 640 * k
        draw.rectangle((x - 20, 30, x + 580, 480), outline=(180, 180, 180), width=2)
        draw.text((x, 60), title, fill="black", font=body)
        ref.append(title)
        for i, (name, value) in enumerate(pairs):
            y = 130 + 64 * i
            draw.text((x, y), name, fill="black", font=body)
            draw.text((x + 330, y), value, fill="black", font=body)
            ref.append(f"{name} {value}")
        units.append(" ".join([title] + [f"{n} {v}" for n, v in pairs]))
    return bgr(img), units, " ".join(ref)


def single() -> tuple[np.ndarray, list[str], str]:
    """One column of prose."""
    img, draw, body, _ = _canvas(1000, 900)
    _column(draw, body, 60, 60, SINGLE, 72)
    return bgr(img), [s for p in SINGLE for s in _sentences(p)], " ".join(SINGLE)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def _edits(a: str, b: str, anywhere: bool) -> np.ndarray:
    """The last row of the edit-distance table of ``a`` against ``b`` (one numpy row per
    character of ``a``); with ``anywhere`` a match may start at any place in ``b``."""
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1)
    prev = np.zeros_like(idx) if anywhere else idx.copy()
    for ch in a:
        row = np.empty_like(prev)
        row[0] = prev[0] + 1
        row[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (bb != ord(ch)))
        prev = np.minimum.accumulate(row - idx) + idx  # insertions along the row
    return prev


def levenshtein(a: str, b: str) -> int:
    return int(_edits(a, b, anywhere=False)[-1])


def nearest(needle: str, hay: str) -> int:
    """The fewest edits that turn ``needle`` into some stretch of ``hay``."""
    return int(_edits(needle, hay, anywhere=True).min())


def norm(text: str) -> str:
    return " ".join(text.lower().split())
