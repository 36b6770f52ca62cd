"""OCR reading order on pages with columns: character error rate and contiguous sentences.

    python scripts/ocr_layout.py                        # this checkout
    python scripts/ocr_layout.py --before /work/main    # and another checkout's ocr.py
    python scripts/ocr_layout.py --image scan.png       # also print a picture's text

Pages are drawn here with Pillow (DejaVu Sans) from known text: a two-column article under
a full-width title, a two-panel application screenshot of label/value rows, and one
column of prose. Each is read by each checkout's ``ocr.recognise`` (2 threads; the rest
of localcrag from this checkout). OCR text is the paragraphs joined by spaces; the
reference is the known text in reading order (title, left column top to bottom, right
column; a panel's title and rows in order, label before value); both with whitespace
collapsed. CER = Levenshtein(ocr, reference) / len(reference). A sentence (for the
panels: a panel, its title and rows in order) is contiguous when some stretch of the OCR
text is within 10% of its length in edits of it (case and spacing ignored).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ocr_pages import bgr, levenshtein, nearest, norm, panels, single, two_columns  # noqa: E402


def load_ocr(tree: Path) -> Any:
    """Another checkout's ``localcrag/ingest/ocr.py`` as a module (the rest from this one)."""
    spec = importlib.util.spec_from_file_location(
        f"ocr_{abs(hash(tree))}", tree / "localcrag/ingest/ocr.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(module: Any, img: np.ndarray) -> tuple[list[tuple[str, int | None]], float]:
    """A checkout's paragraphs for ``img`` and their CPU seconds (2 threads)."""
    cpu = time.process_time()
    paras = module.recognise(img, 900.0, threads=2)
    return paras, time.process_time() - cpu


def text_of(paras: list[tuple[str, int | None]]) -> str:
    return " ".join(t for t, _ in paras)


def show(paras: list[tuple[str, int | None]]) -> None:
    for text, level in paras:
        print(f"         {'#' * (level or 0)}{' ' if level else ''}{text}")


def measure(name: str, trees: dict[str, Any], page: Any) -> None:
    img, sentences, ref = page
    print(f"\n== {name}")
    for who, module in trees.items():
        paras, cpu = read(module, img)
        out = norm(text_of(paras))
        cer = levenshtein(out, norm(ref)) / len(norm(ref))
        whole = sum(nearest(norm(s), out) <= 0.1 * len(s) for s in sentences)
        print(f"{who:>7}: CER {cer:.3f}, contiguous {whole}/{len(sentences)}, {cpu:.2f} CPU s")
        show(paras)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", type=Path, help="another checkout whose layout to compare")
    p.add_argument("--image", type=Path, action="append", default=[], help="also read this")
    args = p.parse_args()
    from localcrag.ingest import ocr

    trees: dict[str, Any] = {}
    if args.before:
        trees["before"] = load_ocr(args.before)
    trees["this"] = ocr
    for name, make in (("two columns", two_columns), ("panels", panels), ("single", single)):
        measure(name, trees, make())
    for path in args.image:
        from PIL import Image

        img = bgr(Image.open(path).convert("RGB"))
        print(f"\n== {path.name}")
        for who, module in trees.items():
            paras, cpu = read(module, img)
            print(f"{who:>7}: {cpu:.2f} CPU s")
            show(paras)


if __name__ == "__main__":
    main()
