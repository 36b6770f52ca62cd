"""OCR on the CPU with RapidOCR (PP-OCRv6 small det/rec ONNX models shipped in its wheel).

Nothing is downloaded: the model files are named explicitly from the installed package, so
RapidOCR's own fetch-on-first-use path is never taken, and a missing file is one line.
Used for PDF pages without a text layer (``pdf.read_pdf``) and for image files (PNG, JPEG,
TIFF; a multi-frame TIFF is one page per frame).

Memory is bounded whatever a page's size. The text detector takes ~230 MB a megapixel of
its input while it runs, and RapidOCR feeds it the whole page (a 150 dpi A4 page: 2.2
megapixels; a small picture is first enlarged until its short side is 736 px, so the
bench's 1400 x 420 PNG became 1.8 megapixels): one page cost 0.4-0.8 GB. Here the
detector runs on tiles: horizontal strips of ~0.3 megapixels (at least 3 overlaps high)
that share DET_OVERLAP rows (more than a tall text line), so every line lies whole in some
strip, each line taken once, whole, from one strip, and a line taller than the overlap
from its pieces (``detect``, ``_merge``); a picture wider than TILE_WIDTH (a panorama, a
banner, a long strip of text) is also cut into columns sharing DET_OVERLAP columns, and a
line across a column edge is joined from its pieces the same way. The recogniser takes
~870 MB a megapixel of input (lines 48 px high, padded to the batch's widest; measured by
hand 2026-12-01), so its batches are bounded by REC_PIXELS, not by count, and a line
wider than REC_MAX_RATIO times its height is read in pieces cut at gaps between letters
(``rec_pieces``). RapidOCR pads a flat picture to a width/height ratio of 8 (a 30,000 x
200 px picture, shrunk to 20,600 x 137, became 20,600 x 5,150: ~2 GB at peak); here the
padding is sized by one tile's width.
Wide pictures are tiled rather than shrunk further: MAX_PIXELS already shrinks a 60,000 x
200 px picture to half size, and more would leave its text a few pixels high. ``scripts/ocr_memory.py`` measures the memory, CPU and character error rate.
Lines are cropped from the whole page with RapidOCR's own crop function. A page is read
at most MAX_PIXELS big (RapidOCR's 2,000 px long side, as an area: a tall picture keeps
its text size) and a picture is enlarged for detection only when both sides are under
DET_MIN_LONG_SIDE.

Recognition runs in batches so the per-page time budget (``ocr_page_seconds``) is checked
between them: a page over budget is skipped with one warning line, not half-read.
Lines are first put in blocks: columns parted by a gutter down several rows (a line the
detector joined across one is cut at it), read one after the other; inside a block they
become paragraphs by vertical gaps; taller short lines become headings.
"""

from __future__ import annotations

import io
import os
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from statistics import median
from threading import get_ident
from typing import Any

import numpy as np

from localcrag.errors import BadDocument, LocalcragError
from localcrag.ingest.files import Paragraphs, RawPage, bad, join_lines, label, page_ranges
from localcrag.ingest.glyphs import settler
from localcrag.ingest.limits import check_pixels, over_limit

MAX_PIXELS = 2000 * 1414  # a page is read at most this big (A4 at 300 dpi: 2,000 px high)
REC_PIXELS = 100_000  # recogniser input a batch (~870 MB a megapixel while it runs)
DET_STRIP_PIXELS = 300_000  # detector input a strip (~230 MB a megapixel while it runs)
DET_OVERLAP = 96  # rows (detector pixels) two strips share: taller than a tall text line
TILE_WIDTH = 2048  # a wider picture is also cut into columns (a page, even landscape, is not)
REC_MAX_RATIO = 100  # a line wider than this many heights is recognised in pieces (a page
# line is 40-80: read whole; ~200 MB of recogniser input at most)
EDGE = 2  # a box this close to an inner strip edge was cut by it
DET_MIN_LONG_SIDE = 736  # a picture with both sides under this is enlarged for detection
_MODELS = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}
REC_INT8 = "PP-OCRv6_rec_small.int8.onnx"  # made in models/ by provisioning (quantize_rec)
_ENGINES: dict[tuple[int, str, int | bool], Any] = {}
_POOLS: dict[int, ThreadPoolExecutor] = {}  # page workers by count, kept for the process


class OverBudget(Exception):
    """A page's OCR took longer than ``ocr_page_seconds``."""


def engine(threads: int = 0, models_dir: Path | None = None, own: bool = False) -> Any:
    """The RapidOCR engine (one per thread count and recogniser, loaded once per process;
    ``own``: one for the calling thread alone, as each page worker has). Its recogniser is
    the int8 copy in ``models_dir`` (``REC_INT8``) when provisioning made one, else the
    wheel's float32 model: the same text, ~15% less CPU (``quantize_rec``)."""
    threads = threads or os.cpu_count() or 1
    rec = models_dir / REC_INT8 if models_dir is not None else None
    key = (threads, str(rec) if rec is not None and rec.is_file() else "", own and get_ident())
    if key in _ENGINES:
        return _ENGINES[key]
    try:
        import rapidocr
        from rapidocr import RapidOCR
    except ImportError:
        raise LocalcragError(
            "OCR is not installed (the rapidocr package is missing)",
            'pip install rapidocr==3.10.0, or set ocr = "never"',
        ) from None
    models = Path(rapidocr.__file__).parent / "models"
    paths = {key: str(models / name) for key, name in _MODELS.items()}
    missing = [p for p in paths.values() if not Path(p).is_file()]
    if missing:
        raise LocalcragError(
            f"OCR model file missing: {missing[0]}",
            "reinstall it: pip install --force-reinstall rapidocr==3.10.0",
        )
    if key[1]:
        paths["Rec.model_path"] = key[1]
    params = {
        **paths,
        "Global.log_level": "error",
        "Global.use_cls": False,
        "EngineConfig.onnxruntime.intra_op_num_threads": threads,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        # on, and shrunk after every run (_tune_sessions): a run's tensors come from one
        # arena instead of one mmap each (glibc's threshold, ingest/heap.py), and it goes back
        # when the run ends
        "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
    }
    _tune_sessions()
    eng = RapidOCR(params=params)
    eng._load_det_model(), eng._load_rec_model()  # load now, not inside the first page's budget
    _ENGINES[key] = eng
    return eng


def quantize_rec(out: Path) -> Path:
    """The wheel's recogniser with its MatMul weights in int8 (per channel), written to
    ``out`` (once, at provisioning; ~3 s). Its convolutions stay float32: int8 ones ran no
    faster. Measured on the 15 pages of bench section 12's scan: the same text, character
    for character, for ~15% less recogniser CPU."""
    import rapidocr

    from localcrag.models.quantize import int8_matmuls

    return int8_matmuls(Path(rapidocr.__file__).parent / "models" / _MODELS["Rec.model_path"], out)


def _tune_sessions() -> None:
    """RapidOCR (3.10) exposes neither option, so its sessions are patched here:
    ``allow_spinning = 0`` (ONNX Runtime's idle worker threads spin by default; measured on
    3 pages at 96 dpi, 2 threads on a busy 2-core machine: 4.9 -> 3.9 CPU s a page), and
    every run shrinks the memory arena when it ends (``enable_memory_arena_shrinkage``):
    with the arena off, each of a run's big tensors was its own mmap under the bounded heap,
    its pages faulted in each time (~400,000 faults a page). Measured on the 15 scanned
    pages, heap bounded as in an ingest: 4.2-5.0 -> 3.4-3.6 CPU s a page with the int8
    recogniser, the same peak RSS (`scripts/ocr_memory.py`)."""
    import onnxruntime as ort
    from rapidocr.inference_engine.onnxruntime.main import OrtInferSession

    make = OrtInferSession._init_sess_opts
    if getattr(make, "localcrag_tuned", False):
        return

    def options(cfg: Any) -> Any:
        opts = make(cfg)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return opts

    shrink = ort.RunOptions()
    shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    def run(self: Any, input_content: np.ndarray) -> np.ndarray:
        feeds = dict(zip(self.get_input_names(), [input_content]))
        try:
            return self.session.run(self.get_output_names(), feeds, shrink)[0]
        except Exception as exc:
            raise LocalcragError(
                f"OCR failed ({type(exc).__name__}: {str(exc).splitlines()[0][:160]})",
                'set ocr = "never" to index without it',
            ) from exc

    options.localcrag_tuned = True  # type: ignore[attr-defined]
    # patching RapidOCR's session options and run: it has no setting for these
    OrtInferSession._init_sess_opts = staticmethod(options)  # type: ignore[method-assign]
    OrtInferSession.__call__ = run  # type: ignore[method-assign]


def recognise(
    img: np.ndarray,
    budget: float,
    threads: int = 0,
    models_dir: Path | None = None,
    own: bool = False,
) -> Paragraphs:
    """Paragraphs read from one BGR image; raises OverBudget past ``budget`` seconds
    (``own``: with the calling thread's own engine, see ``engine``)."""
    eng = engine(threads, models_dir, own)
    t0 = time.perf_counter()
    small = padded(bounded(img), eng.width_height_ratio, eng.min_height)
    boxes = detect(eng._load_det_model(), small, t0 + budget)
    if not len(boxes):
        return []
    boxes = cut_at_gutters(boxes, small)
    pieces = [  # (line, piece of its crop, what joins it to the next piece)
        (i, piece, gap)
        for i, crop in enumerate(eng.crop_text_regions(small, boxes))
        for piece, gap in rec_pieces(crop)
    ]
    texts: dict[int, str] = {}
    for batch in rec_batches([p.shape[1] / max(p.shape[0], 1) for _, p, _ in pieces]):
        if time.perf_counter() - t0 > budget:
            raise OverBudget
        rec = eng.recognize_txt([pieces[j][1] for j in batch])
        for j, text, score in zip(batch, rec.txts, rec.scores):
            if text.strip() and score >= eng.text_score:
                texts[j] = text.strip()
    if time.perf_counter() - t0 > budget:
        raise OverBudget
    lines: dict[int, str] = {}
    for j, (i, _, gap) in enumerate(pieces):
        if j in texts:
            lines[i] = lines.get(i, "") + texts[j] + gap
    return layout([(boxes[i], t.strip()) for i, t in sorted(lines.items()) if t.strip()])


def padded(img: np.ndarray, ratio: float, min_height: float) -> np.ndarray:
    """A flat picture with room above and below its text, as RapidOCR gives it (its
    detector misses a line that fills the picture's height), but sized by one tile's width:
    RapidOCR pads to a width/height ``ratio`` of the whole width (a line 20,600 px wide:
    5,000 px of padding, 106 megapixels of detector input)."""
    from rapidocr.utils.process_img import add_round_letterbox, get_padding_h

    h, w = img.shape[:2]
    w = min(w, TILE_WIDTH)
    if h > min_height and (ratio == -1 or w / h <= ratio):
        return img
    pad = get_padding_h(h, w, ratio, min_height)
    return add_round_letterbox(img, (pad, pad, 0, 0))


def rec_pieces(crop: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """A line's crop in pieces the recogniser takes at a bounded size (at most REC_MAX_RATIO
    times as wide as high; its input grows with the width), each with what joins its text
    to the next: a cut is made at the faintest column in the last quarter of a piece's
    width (a gap between letters), and a blank run there at least a third of the line's
    height wide is a space between words."""
    h, w = crop.shape[:2]
    span = int(REC_MAX_RATIO * max(h, 1))
    if w <= span:
        return [(crop, "")]
    gray = crop.mean(axis=2) if crop.ndim == 3 else crop.astype(np.float32)
    background = float(np.median(gray))
    ink = (np.abs(gray - background) > 0.25 * max(float(np.ptp(gray)), 1.0)).sum(axis=0)
    out: list[tuple[np.ndarray, str]] = []
    at = 0
    while w - at > span:
        lo, hi = at + span * 3 // 4, at + span
        window = ink[lo:hi]
        faint = window == window.min()
        best, run, start = (lo, 0), 0, lo
        for x, f in enumerate(faint, start=lo):  # the longest run of the faintest columns
            run, start = (run + 1, start) if f else (0, x + 1)
            if run > best[1]:
                best = (start, run)
        cut = best[0] + best[1] // 2
        space = window.min() == 0 and best[1] >= h / 3
        out.append((crop[:, at:cut], " " if space else ""))
        at = cut
    out.append((crop[:, at:], ""))
    return out


def bounded(img: np.ndarray) -> np.ndarray:
    """The page scaled down to at most MAX_PIXELS (and up to a 30 px short side). RapidOCR
    caps the long side at 2,000 px instead, which is the same for an A4 page but shrinks
    a tall picture (a long screenshot, a receipt) until its text is unreadable; detection
    in strips and bounded recognition batches keep memory bounded whatever the shape."""
    import cv2

    h, w = img.shape[:2]
    scale = min(1.0, (MAX_PIXELS / (h * w)) ** 0.5)
    scale = max(scale, 30 / min(h, w))
    if scale == 1.0:
        return img
    return cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))))


def rec_batches(ratios: list[float]) -> list[list[int]]:
    """Indices of the crops (width/height ``ratios``) recognised together: narrowest first,
    since a batch is padded to its widest line, at most 6 (RapidOCR's batch) and at most
    REC_PIXELS of recogniser input (48 px high lines; one line alone whatever its width):
    the recogniser takes ~870 MB a megapixel of input while it runs."""
    batches: list[list[int]] = []
    for i in sorted(range(len(ratios)), key=lambda i: ratios[i]):
        widest = max(ratios[i], 320 / 48)  # RapidOCR pads a line to at least 48 x 320
        if (
            batches
            and len(batches[-1]) < 6
            and (len(batches[-1]) + 1) * 48 * 48 * widest <= REC_PIXELS
        ):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def det_scale(h: int, w: int) -> float:
    """The factor the page is enlarged by for detection: only a small picture, up to a
    DET_MIN_LONG_SIDE long side. RapidOCR's own rule enlarges any page until its short side
    is 736 px (the bench's 1400 x 420 PNG 1.75x); measured by hand 2026-12-01 on that PNG
    (30 px text) and copies of it shrunk to 0.5x and 0.35x (10 px text): no character
    wrong under either rule, 0.54 / 0.30 / 0.27 CPU s against 1.63 / 1.52 / 1.31 s."""
    return max(1.0, DET_MIN_LONG_SIDE / max(h, w))


def _spans(size: int, span: int) -> list[tuple[int, int]]:
    """(start, end) of windows ``span`` long over ``size``, neighbours sharing DET_OVERLAP."""
    if size <= span:
        return [(0, size)]
    starts = list(range(0, size - span, span - DET_OVERLAP)) + [size - span]
    return [(a, a + span) for a in starts]


def tiles(height: int, width: int) -> list[tuple[int, int, int, int]]:
    """(top, bottom, left, right) of the detection tiles of a ``height`` x ``width`` image
    (sides multiples of 32), row by row: columns at most TILE_WIDTH wide, rows of at most
    ~DET_STRIP_PIXELS pixels a tile (but at least 3 overlaps high); neighbours share
    DET_OVERLAP rows or columns, so any line up to that tall lies whole in one row of tiles,
    and a line across a column edge is seen in both columns' shared part."""
    cols = _spans(width, TILE_WIDTH)
    tile_width = cols[0][1] - cols[0][0]
    rows = _spans(height, max(3 * DET_OVERLAP, DET_STRIP_PIXELS // tile_width // 32 * 32))
    return [(top, bottom, left, right) for top, bottom in rows for left, right in cols]


def strips(height: int, width: int) -> list[tuple[int, int]]:
    """(top, bottom) rows of the detection tiles' rows (``tiles``)."""
    return sorted({(top, bottom) for top, bottom, _, _ in tiles(height, width)})


def _owned(cuts: list[tuple[int, int]], size: int) -> list[tuple[float, float]]:
    """Each window owns its span up to the middle of its overlaps with its neighbours."""
    return [
        (
            (a + cuts[k - 1][1]) / 2 if k else 0.0,
            (b + cuts[k + 1][0]) / 2 if k + 1 < len(cuts) else float(size),
        )
        for k, (a, b) in enumerate(cuts)
    ]


def detect(det: Any, img: np.ndarray, deadline: float = float("inf")) -> np.ndarray:
    """Text line boxes (n x 4 x 2, float32, in ``img`` pixels) found by RapidOCR's detector
    run tile by tile over the page scaled by ``det_scale``, so its memory (~230 MB a
    megapixel of input) is bounded by one tile's, whatever the page's size (past
    ``deadline``, a ``time.perf_counter()`` value, it raises OverBudget). A line in an
    overlap is taken once, whole, from one tile, or joined from its pieces (``_merge``)."""
    import cv2
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    h, w = img.shape[:2]
    scale = det_scale(h, w)
    height, width = max(32, round(h * scale / 32) * 32), max(32, round(w * scale / 32) * 32)
    scaled = cv2.resize(img, (width, height)) if (height, width) != (h, w) else img
    prep = DetPreProcess(10**9, "max", det.mean, det.std)  # sizes are multiples of 32: no resize
    cuts = tiles(height, width)
    rows = _owned(sorted({(t, b) for t, b, _, _ in cuts}), height)
    cols = _owned(sorted({(a, b) for _, _, a, b in cuts}), width)
    row_of = {t: i for i, t in enumerate(sorted({t for t, _, _, _ in cuts}))}
    col_of = {a: i for i, a in enumerate(sorted({a for _, _, a, _ in cuts}))}
    owned = [(*rows[row_of[t]], *cols[col_of[a]]) for t, _, a, _ in cuts]
    found: list[tuple[np.ndarray, int, bool]] = []  # (box in scaled pixels, tile, cut)
    for k, (top, bottom, left, right) in enumerate(cuts):
        if time.perf_counter() > deadline:
            raise OverBudget
        preds = det.session(prep(np.ascontiguousarray(scaled[top:bottom, left:right])))
        boxes, _ = det.postprocess_op(preds, (bottom - top, right - left))
        for box in boxes:
            y0, y1 = box[:, 1].min(), box[:, 1].max()
            x0, x1 = box[:, 0].min(), box[:, 0].max()
            cut = (
                (top > 0 and y0 <= EDGE)
                or (bottom < height and y1 >= bottom - top - 1 - EDGE)
                or (left > 0 and x0 <= EDGE)
                or (right < width and x1 >= right - left - 1 - EDGE)
            )
            found.append((box + np.array([left, top], dtype=np.float32), k, bool(cut)))
    kept = _merge(found, owned)
    if not kept:
        return np.zeros((0, 4, 2), dtype=np.float32)
    out = np.array(kept, dtype=np.float32)
    out[:, :, 0] *= w / width
    out[:, :, 1] *= h / height
    return det.sorted_boxes(out)


def _merge(
    found: list[tuple[np.ndarray, int, bool]], owned: Sequence[tuple[float, ...]]
) -> list[np.ndarray]:
    """The boxes of all tiles, each line once. A whole box is kept from the tile that owns
    its middle (``owned``: each tile's rows, and columns when given, up to the middle of its
    overlaps), so a line seen by two tiles comes from one of them however each split it
    into boxes; another whole box only when nothing kept overlaps it (the owner saw it cut,
    or the line's middle, a pixel apart in the two tiles, falls on neither side). A box cut
    by a tile edge (within EDGE of it) is kept only where no whole box covers it, the pieces
    of one line (taller than the overlap, or longer than a tile is wide) joined into their
    bounding box."""
    whole = [(box, k) for box, k, cut in found if not cut]

    def mine(box: np.ndarray, k: int) -> bool:
        y = (box[:, 1].min() + box[:, 1].max()) / 2
        x = (box[:, 0].min() + box[:, 0].max()) / 2
        area = owned[k]
        return bool(area[0] <= y < area[1] and (len(area) < 4 or area[2] <= x < area[3]))

    kept = [box for box, k in whole if mine(box, k)]
    for box, k in whole:  # the rest, each unless a line already kept overlaps it
        if not mine(box, k) and not any(_overlap(box, other) for other in kept):
            kept.append(box)
    pieces: list[np.ndarray] = []
    for box, _, cut in found:
        if not cut or any(_inside(box, k) > 0.3 for k in kept):
            continue
        pieces.append(box)
    joined = True
    while joined:  # a line's pieces from many tiles, in whatever order they came
        joined = False
        for i in range(len(pieces)):
            for j in range(i + 1, len(pieces)):
                if _inside(pieces[j], pieces[i]) > 0 or _inside(pieces[i], pieces[j]) > 0:
                    (x0, y0), (x1, y1) = (
                        np.minimum(pieces[i].min(0), pieces[j].min(0)),
                        np.maximum(pieces[i].max(0), pieces[j].max(0)),
                    )
                    pieces[i] = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
                    del pieces[j]
                    joined = True
                    break
            if joined:
                break
    return kept + pieces


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether most of either box's rectangle lies in the other's."""
    return max(_inside(a, b), _inside(b, a)) > 0.5


def _inside(a: np.ndarray, b: np.ndarray) -> float:
    """The share of box a's bounding rectangle that lies in box b's."""
    (ax0, ay0), (ax1, ay1) = a.min(0), a.max(0)
    (bx0, by0), (bx1, by1) = b.min(0), b.max(0)
    inter = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
    return float(inter / max((ax1 - ax0) * (ay1 - ay0), 1.0))


Box = tuple[float, float, float, float, str]  # y0, y1, x0, x1, text of a recognised line
MIN_RUN = 3  # rows a gutter must run down to part columns (a gap on one row parts nothing)
GUTTER = 0.5  # the narrowest gutter, in line heights (a two-column scan's: ~0.8)


def _rows(boxes: list[Box]) -> list[list[Box]]:
    """Boxes on one visual row (overlapping by more than half the shorter one's height), top
    to bottom."""
    rows: list[list[Box]] = []
    top = bottom = 0.0
    for box in sorted(boxes, key=lambda b: (b[0] + b[1]) / 2):
        y0, y1 = box[0], box[1]
        if rows and min(y1, bottom) - max(y0, top) > 0.5 * min(y1 - y0, bottom - top):
            rows[-1].append(box)
            top, bottom = min(top, y0), max(bottom, y1)
        else:
            rows.append([box])
            top, bottom = y0, y1
    return rows


def _free(row: list[Box], left: float, right: float) -> list[tuple[float, float]]:
    """The stretches of [left, right] that no box of ``row`` covers."""
    out, at = [], left
    for _, _, x0, x1, _ in sorted(row, key=lambda b: b[2]):
        if x0 > at:
            out.append((at, x0))
        at = max(at, x1)
    if at < right:
        out.append((at, right))
    return out


def _both(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The stretches in both lists (each sorted, non-overlapping)."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _sides(row: list[Box], a: float) -> tuple[list[Box], list[Box]]:
    return [b for b in row if b[3] <= a], [b for b in row if b[3] > a]


def _tabular(rows: list[list[Box]], a: float) -> bool:
    """Whether a gutter at ``a`` parts labels from their values (or list markers from their
    items) rather than two columns: most rows with text left of it have text right of it on
    the same row, and the left texts end with a colon, are markers, or are short beside
    short values that are not themselves labels (a colon after them says a panel of labels
    lies to the right)."""
    sides = [_sides(r, a) for r in rows]
    pairs = [  # the texts either side of the gutter, on rows with both
        (max(left, key=lambda b: b[3])[4], min(right, key=lambda b: b[2])[4])
        for left, right in sides
        if left and right
    ]
    if len(pairs) < 0.7 * sum(1 for left, _ in sides if left):
        return False
    lefts, rights = [p[0] for p in pairs], [p[1] for p in pairs]
    colon = sum(t.endswith(":") for t in lefts) >= 0.5 * len(lefts)
    markers = all(len(t) <= 3 for t in lefts)
    short = (
        median(len(t.split()) for t in lefts) <= 4 and median(len(t.split()) for t in rights) <= 4
    )
    labels_right = sum(t.endswith(":") for t in rights) >= 0.5 * len(rights)
    return colon or markers or (short and not labels_right)


def _gutter(rows: list[list[Box]], height: float) -> tuple[int, int, float, float] | None:
    """(first row, last row, left, right) of the longest gutter in ``rows`` (the widest of
    the longest): a stretch at least GUTTER line heights wide that no box crosses down at
    least MIN_RUN rows, with text on both sides in at least two of them, not a label/value
    gap (``_tabular``)."""
    left = min(b[2] for r in rows for b in r)
    right = max(b[3] for r in rows for b in r)
    free = [_free(r, left, right) for r in rows]
    found: list[tuple[int, int, float, float]] = []
    for i in range(len(rows)):
        common = [(a, b) for a, b in free[i] if b - a >= GUTTER * height]
        for j in range(i, len(rows)):
            if not common:
                break
            below = _both(common, free[j + 1]) if j + 1 < len(rows) else []
            below = [(a, b) for a, b in below if b - a >= GUTTER * height]
            if j - i + 1 >= MIN_RUN and len(below) < len(common):  # a gutter ends here
                found += [(i, j, a, b) for a, b in common if left < a and b < right]
            common = below
    found.sort(key=lambda g: (g[1] - g[0], g[3] - g[2]), reverse=True)
    rejected: list[tuple[int, int, float, float]] = []
    for i, j, a, b in found:
        if any(r[0] <= i and j <= r[1] and a < r[3] and r[2] < b for r in rejected):
            continue
        run = rows[i : j + 1]
        sides = [_sides(r, a) for r in run]
        if sum(bool(s[0]) for s in sides) < 2 or sum(bool(s[1]) for s in sides) < 2:
            continue
        if _tabular(run, a):
            rejected.append((i, j, a, b))
            continue
        return i, j, a, b
    return None


def _blocks(boxes: list[Box], height: float) -> list[list[list[Box]]]:
    """The page's rows of lines in blocks, in reading order: where a gutter (``_gutter``)
    runs down several rows, the rows above it, then the text left of it, then right of
    it, then the rows below, each split again the same way. One-sided rows at the foot of
    the left side that stand apart from it, right above a row across the gutter, are a
    heading of what follows, not the end of the left column."""
    rows = _rows(boxes)
    if len(rows) < MIN_RUN:
        return [rows] if rows else []
    found = _gutter(rows, height)
    if found is None:
        return [rows]
    i, j, a, _ = found
    last_right = max(k for k in range(i, j + 1) if _sides(rows[k], a)[1])
    if j + 1 < len(rows) and last_right < j:
        gap = min(b[0] for b in rows[last_right + 1]) - max(b[1] for b in rows[last_right])
        below = min(b[0] for b in rows[j + 1]) - max(b[1] for b in rows[j])
        if gap > 0.6 * height and below < gap and j - last_right <= 2:
            j = last_right
    run = [b for r in rows[i : j + 1] for b in r]

    def flat(part: list[list[Box]]) -> list[Box]:
        return [b for r in part for b in r]

    return [
        *_blocks(flat(rows[:i]), height),
        *_blocks([b for b in run if b[3] <= a], height),
        *_blocks([b for b in run if b[3] > a], height),
        *_blocks(flat(rows[j + 1 :]), height),
    ]


def cut_at_gutters(boxes: np.ndarray, img: np.ndarray) -> np.ndarray:
    """The detector's boxes, a box that spans a column gutter cut in two at it: the
    detector joins two columns' lines across a gutter about a line high. A box is cut
    where its picture is blank over at least GUTTER line heights and the same stretch is
    clear of boxes on two neighbouring rows (above, below, or one of each) that have text
    on both sides of it; a title across the columns has no such blank."""
    rects = [_rect(b, str(k)) for k, b in enumerate(boxes)]
    rows = _rows(rects)
    left, right = min(r[2] for r in rects), max(r[3] for r in rects)
    free = [_free(r, left, right) for r in rows]
    out: list[np.ndarray] = []
    for n, row in enumerate(rows):
        for y0, y1, x0, x1, key in row:
            cut = None
            h = y1 - y0
            for p, q in ((n - 2, n - 1), (n - 1, n + 1), (n + 1, n + 2)):
                if cut or p < 0 or q >= len(rows):
                    continue
                for a, b in _both(free[p], free[q]):
                    a, b = max(a, x0 + h), min(b, x1 - h)
                    if b - a < GUTTER * h or not all(
                        _sides(rows[k], a)[0] and _sides(rows[k], b)[1] for k in (p, q)
                    ):
                        continue
                    cut = _blank(
                        img[int(y0) : int(y1) + 1, int(x0) : int(x1) + 1],
                        a - int(x0),
                        b - int(x0),
                        GUTTER * h,
                    )
                    if cut:
                        break
            if cut is None:
                out.append(boxes[int(key)])
                continue
            for lo, hi in ((x0, int(x0) + cut[0]), (int(x0) + cut[1], x1)):
                out.append(np.array([[lo, y0], [hi, y0], [hi, y1], [lo, y1]], np.float32))
    return np.array(out, dtype=np.float32)


def _blank(crop: np.ndarray, a: float, b: float, least: float) -> tuple[int, int] | None:
    """The longest run of ``crop``'s columns without ink between ``a`` and ``b``, when at
    least ``least`` wide. Ink: a pixel over 64 grey levels from the paper, the median of
    the crop's border (a detected box has a margin round its text; light on dark too)."""
    gray = crop.mean(axis=2) if crop.ndim == 3 else crop.astype(np.float32)
    edges = np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])
    paper = float(np.median(edges))
    ink = np.abs(gray - paper) > 64
    lo = max(0, int(a))
    best, run = (0, 0), 0
    for x, count in enumerate(ink[:, lo : int(b) + 1].sum(axis=0)):
        run = run + 1 if count == 0 else 0
        if run > best[1]:
            best = (x - run + 1, run)
    return (lo + best[0], lo + best[0] + best[1]) if best[1] >= least else None


def _rect(box: np.ndarray, text: str) -> Box:
    return (
        float(box[:, 1].min()),
        float(box[:, 1].max()),
        float(box[:, 0].min()),
        float(box[:, 0].max()),
        text,
    )


def layout(lines: list[tuple[np.ndarray, str]]) -> Paragraphs:
    """Boxed lines to paragraphs. The lines are first cut into blocks read one after the
    other (``_blocks``: columns parted by a gutter that runs down several rows, a title
    across them before them); inside a block, boxes on one row join left to right (a label
    and its value stay one line); a gap above a row larger than 0.6 line heights, or a
    distance from the row above over 1.4 times the page's line pitch inside a paragraph
    (robust to a box a pixel taller or shorter, which a gap of 0.6 line heights is not),
    starts a paragraph; a paragraph left open at the foot of a column (no final
    punctuation) goes on at the top of the next when that starts in lower case. A row
    without final punctuation of at most 12 words is a heading when it is >= 1.25x the
    median line height (level 1 from 1.6x), or when it is under half the median row width
    and capitalised (a bold subheading at body size: OCR cannot see the weight)."""
    boxes = [_rect(b, t) for b, t in lines]
    if not boxes:
        return []
    blocks = _blocks(boxes, median(b[1] - b[0] for b in boxes))
    rows = [  # y0, y1, x1, [(x0, text)], first row of its block
        (
            min(b[0] for b in r),
            max(b[1] for b in r),
            max(b[3] for b in r),
            [(b[2], b[4]) for b in r],
            k == 0,
        )
        for block in blocks
        for k, r in enumerate(block)
    ]
    height = median(r[1] - r[0] for r in rows)
    width = median(r[2] - min(x for x, _ in r[3]) for r in rows)
    steps = sorted(
        (b[0] + b[1]) / 2 - (a[0] + a[1]) / 2 for a, b in zip(rows, rows[1:]) if not b[4]
    )
    pitch = steps[len(steps) // 4] if steps else float("inf")  # the lower quartile: a page
    # of short paragraphs has as many steps between paragraphs as inside them
    paras: Paragraphs = []
    current: list[str] = []
    prev_bottom = prev_middle = 0.0
    for y0, y1, x1, parts, first in rows:
        text = " ".join(t for _, t in sorted(parts))
        h, w = y1 - y0, x1 - min(x for x, _ in parts)
        short = len(text.split()) <= 12 and text[-1] not in ".,;:!?"
        big = short and h >= 1.25 * height
        heading = big or (short and w < 0.5 * width and text[0].isupper() and len(rows) > 3)
        if first:  # a block's first row: the paragraph goes on only from a column's foot
            apart = not (current and current[-1][-1] not in ".!?:" and text[0].islower())
        else:
            apart = y0 - prev_bottom > 0.6 * height or (y0 + y1) / 2 - prev_middle > 1.4 * pitch
        if current and (heading or apart):
            paras.append((join_lines(current), None))
            current = []
        if heading:
            paras.append((text, 1 if h >= 1.6 * height else 2))
        else:
            current.append(text)
        prev_bottom, prev_middle = y1, (y0 + y1) / 2
    if current:
        paras.append((join_lines(current), None))
    return paras


def ocr_pdf_pages(
    path: Path, doc: Any, numbers: list[int], ctx: Any
) -> tuple[dict[int, Paragraphs], list[str]]:
    """OCR the given 1-based pages of an open PyMuPDF document at ``ctx.ocr_dpi``.

    Pages are read side by side, one a core (``ctx.threads``, 0: every core), each by a
    worker with its own single-threaded engine, while this thread renders the next: an
    engine on two threads spent 4.3 CPU s a page where one on a single thread spent 3.0 (its
    threads wait on each other inside every run; ``python scripts/perf_profile.py ocr``).
    At most one page a worker is in flight, and results are taken in page order."""
    out: dict[int, Paragraphs] = {}
    warnings: list[str] = []
    slow: list[int] = []
    workers = ctx.threads or os.cpu_count() or 1
    pool = _POOLS.get(workers) or _POOLS.setdefault(
        workers, ThreadPoolExecutor(workers, thread_name_prefix="localcrag-ocr")
    )
    pending: deque[tuple[int, int, Future[Paragraphs] | None]] = deque()

    def take() -> None:
        i, number, job = pending.popleft()
        if job is not None:
            try:
                out[number] = job.result()
            except OverBudget:
                slow.append(number)
        if ctx.on_page:
            ctx.on_page(i + 1, len(numbers))

    try:
        for i, number in enumerate(numbers):
            page = doc[number - 1]
            scale = ctx.ocr_dpi / 72
            job = None
            try:
                check_pixels(
                    path, int(page.rect.width * scale), int(page.rect.height * scale), ctx.limits
                )
            except BadDocument as exc:  # one page over the limit: the rest is still read
                warnings.append(
                    f"page {number} skipped: {exc.message[len(label(path)) + 2 :]} ({exc.hint})"
                )
            else:
                pix = page.get_pixmap(dpi=ctx.ocr_dpi, colorspace="rgb", alpha=False)
                img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.w, 3)
                job = pool.submit(
                    recognise,
                    np.ascontiguousarray(img[:, :, ::-1]),
                    ctx.ocr_page_seconds,
                    1,
                    ctx.models_dir,
                    True,
                )
            pending.append((i, number, job))
            while len(pending) > workers:
                take()
        while pending:
            take()
    finally:  # a failure or a cancel: pages not started are not read
        for _, _, job in pending:
            if job is not None:
                job.cancel()
    if slow:
        warnings.append(
            f"page(s) {page_ranges(slow)} skipped: OCR took over {ctx.ocr_page_seconds:g} s "
            "a page (raise the setting ocr_page_seconds, or lower ocr_dpi)"
        )
    settled = settled_pages(list(out.values()))
    return dict(zip(out, settled)), [f"{label(path)}: {w}" for w in warnings]


def settled_pages(pages: list[Paragraphs]) -> list[Paragraphs]:
    """A document's OCR'd pages with its l-or-I words settled (``glyphs``), the whole
    document the evidence."""
    settle = settler(text for paras in pages for text, _ in paras)
    return [[(settle(text), level) for text, level in paras] for paras in pages]


def _unreadable(path: Path) -> Exception:
    return bad(path, "corrupt or unreadable image", "re-export it as PNG")


def read_image(path: Path, data: bytes, ctx: Any) -> tuple[list[RawPage], list[str]]:
    """PNG/JPEG/TIFF through OCR; every frame of a multi-page TIFF is a page. Pillow's own
    DecompressionBombWarning (two lines on stderr) is silenced: ``check_pixels`` says it in
    one line naming the file and the setting."""
    import warnings

    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        return _read_image(path, data, ctx)


def _read_image(path: Path, data: bytes, ctx: Any) -> tuple[list[RawPage], list[str]]:
    from PIL import Image, UnidentifiedImageError

    if ctx.ocr == "never":
        raise bad(
            path,
            "image files are read only by OCR, which is off",
            'set ocr = "auto" (config.toml or LOCALCRAG_OCR=auto)',
        )
    Image.MAX_IMAGE_PIXELS = ctx.limits.max_image_pixels  # Pillow refuses 2x this at open
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise over_limit(
            path,
            "image of more than twice the pixel limit",
            f"{ctx.limits.max_image_pixels:,} pixels",
            "max_image_pixels",
        ) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise _unreadable(path) from None
    frames = getattr(image, "n_frames", 1)
    pages, slow = [], []
    for i in range(frames):
        try:  # decoding happens here, lazily: a truncated file fails now, and only here
            image.seek(i)
            check_pixels(path, image.width, image.height, ctx.limits)
            img = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])
        except (OSError, SyntaxError, ValueError, EOFError):
            raise _unreadable(path) from None
        try:
            paras = recognise(img, ctx.ocr_page_seconds, ctx.threads, ctx.models_dir)
            pages.append(RawPage(i + 1, paras, "ocr"))
        except OverBudget:
            slow.append(i + 1)
        if ctx.on_page:
            ctx.on_page(i + 1, frames)
    if slow and not pages:
        raise bad(
            path, f"OCR took over {ctx.ocr_page_seconds:g} s", "raise the setting ocr_page_seconds"
        )
    settled = settled_pages([page.paras for page in pages])
    pages = [page._replace(paras=paras) for page, paras in zip(pages, settled)]
    return pages, [
        f"{label(path)}: page(s) {page_ranges(slow)} skipped: OCR took over "
        f"{ctx.ocr_page_seconds:g} s a page (raise the setting ocr_page_seconds)"
    ] if slow else []
