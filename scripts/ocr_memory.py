"""OCR quality, CPU and memory a page (memory bounded without losing text).

    python scripts/ocr_memory.py                     # this checkout
    python scripts/ocr_memory.py --tree /tmp/old     # another checkout's localcrag (a before)

Quality, by a rule fixed before any result: 10 pages of AI_Information.pdf (0-based
round(i * (N - 1) / 9)) rendered to 150 dpi images and read by ``ocr.recognise``; OCR text
is the paragraphs joined by spaces, the reference the page's text layer; both with
whitespace collapsed. CER = Levenshtein(ocr, reference) / len(reference), summed over the
pages; word recall = the share of the reference's words (lowercased, without punctuation,
as a multiset) found in the OCR's. Plus the mixed bench's PNG (``bench/mixed.py``) and its
4 known lines. CPU = ``time.process_time()`` around each ``recognise`` (2 threads).

Memory: each case in a fresh process (the engine loaded, the image decoded), the peak RSS
(VmHWM) during one ``recognise`` over the RSS before it: the PNG, and page 1 at 96
dpi (the ``ocr_dpi`` default) and 150 dpi; with ``--heap`` after ``ingest.heap.bound_heap``
(as an ingest does).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT.parent / "shared/data/ai-information/AI_Information.pdf"  # the test data
PNG_LINES = [
    "Minutes of the budget review, 14 March 2024.",
    "The travel budget of 48,000 euros was approved by Maria Okafor.",
    "The next review is on Thursday 21 March at 10:00 in room B2.",
    "Actions: Priya sends the revised forecast by Friday.",
]


def levenshtein(a: str, b: str) -> int:
    """Edit distance, one numpy row per character of ``a``."""
    if not a:
        return len(b)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1)
    prev = idx.copy()
    for ch in a:
        row = np.empty_like(prev)
        row[0] = prev[0] + 1
        row[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (bb != ord(ch)))
        prev = np.minimum.accumulate(row - idx) + idx  # insertions along the row
    return int(prev[-1])


def _words(s: str) -> Counter[str]:
    return Counter(w for w in (re.sub(r"[^\w]", "", x.lower()) for x in s.split()) if w)


def score(ocr_text: str, ref: str) -> tuple[int, int, float]:
    """(edits, reference characters, word recall)."""
    o, r = " ".join(ocr_text.split()), " ".join(ref.split())
    wr, wo = _words(ref), _words(ocr_text)
    recall = sum(min(n, wo[w]) for w, n in wr.items()) / max(sum(wr.values()), 1)
    return levenshtein(o, r), len(r), recall


def _pdf_image(page: int, dpi: int) -> np.ndarray:
    import pymupdf

    with pymupdf.open(PDF) as doc:
        pix = doc[page].get_pixmap(dpi=dpi, colorspace="rgb", alpha=False)
        img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.w, 3)[:, :, ::-1]
    return np.ascontiguousarray(img)


def _png_image() -> np.ndarray:
    from PIL import Image

    from bench.mixed import _png

    with tempfile.TemporaryDirectory() as d:
        _png(Path(d) / "m.png")
        img = np.asarray(Image.open(Path(d) / "m.png").convert("RGB"))[:, :, ::-1]
    return np.ascontiguousarray(img)


def quality() -> None:
    import pymupdf

    from localcrag.ingest import ocr

    def read(img: np.ndarray) -> tuple[str, float]:
        t = time.process_time()
        paras = ocr.recognise(img, 3600.0, 2)
        return " ".join(p for p, _ in paras), time.process_time() - t

    ocr.engine(2)
    with pymupdf.open(PDF) as doc:
        n = doc.page_count
        refs = {p: doc[p].get_text() for p in sorted({round(i * (n - 1) / 9) for i in range(10)})}
    edits = chars = 0
    cpu, recalls = 0.0, []
    for p, ref in refs.items():
        text, c = read(_pdf_image(p, 150))
        e, n_chars, r = score(text, ref)
        edits, chars, cpu = edits + e, chars + n_chars, cpu + c
        recalls.append(r)
        print(f"page {p + 1}: CER {e / n_chars:.4f} word recall {r:.4f} CPU {c:.1f} s")
    print(
        f"PDF, {len(refs)} pages at 150 dpi: CER {edits / chars:.4f} ({edits}/{chars}), "
        f"mean word recall {np.mean(recalls):.4f}, CPU {cpu / len(refs):.2f} s a page"
    )
    text, c = read(_png_image())
    e, n_chars, r = score(text, " ".join(PNG_LINES))
    print(f"PNG: CER {e / n_chars:.4f} ({e}/{n_chars}), word recall {r:.4f}, CPU {c:.2f} s")


def memory(case: str, heap: bool) -> None:
    from localcrag.ingest import ocr

    def rss() -> float:
        return (
            int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGESIZE") / 2**20
        )

    def hwm() -> float:  # the peak RSS (ru_maxrss would count the parent's, before exec)
        status = Path("/proc/self/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+)", status)[1]) / 1024  # type: ignore[index]

    img = _png_image() if case == "png" else _pdf_image(0, int(case[1:]))
    if heap:
        from localcrag.ingest.heap import bound_heap

        bound_heap()
    ocr.engine(2)
    before = max(rss(), hwm())
    ocr.recognise(img, 3600.0, 2)
    peak = hwm()
    print(
        f"{case} ({img.shape[1]}x{img.shape[0]}){' heap bounded' if heap else ''}: "
        f"+{peak - before:.0f} MB peak while read (from {before:.0f} MB), {rss():.0f} MB after"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", type=Path, default=ROOT, help="checkout whose localcrag is measured")
    p.add_argument("--memory", help=argparse.SUPPRESS)  # one case, in a child process
    p.add_argument("--heap", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    sys.path[:0] = [str(args.tree), str(ROOT)]
    if args.memory:
        memory(args.memory, args.heap)
        return
    bounded = (args.tree / "localcrag/ingest/heap.py").is_file()  # not before this change
    for heap in (False, True) if bounded else (False,):
        for case in ("png", "p96", "p150"):
            cmd = [sys.executable, __file__, "--tree", str(args.tree), "--memory", case]
            subprocess.run(cmd + ["--heap"] * heap, check=True)
    quality()


if __name__ == "__main__":
    main()
