"""What reading a PDF's tables costs (``python -m bench.pdf_tables [--layout] [PDF ...]``;
default: the ai-information PDFs). A fresh process per run, so the imports count.

Per PDF: its pages with at least ``pdftables.MIN_RULES`` horizontal rules (the only ones
the table finder runs on), the tables found on each, the process CPU seconds of
``pdftables.page_tables`` over those pages (per page too) and of ``parse_document`` over
the whole file (each the minimum of 3 runs, after one warm-up call), then the process's
import cost and peak RSS. ``--layout``: PyMuPDF imported with its layout model
(pymupdf-layout) and the tables found by ``page.find_tables()`` with it (``use_layout``,
PyMuPDF's default; what pdftables ran before), for comparison. CPU seconds, not wall
time: the machine is shared.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

T0 = time.process_time()


def main(argv: list[str]) -> None:
    layout = "--layout" in argv
    pdfs = [Path(a) for a in argv if a != "--layout"]
    if not pdfs:  # bench.PDFS, without importing bench (its imports would count)
        data = Path(__file__).resolve().parents[2] / "shared" / "data" / "ai-information"
        pdfs = sorted(data.glob("*.pdf"))
    if layout:
        import pymupdf  # PyMuPDF's own import: loads pymupdf.layout
    from localcrag.ingest.parse import parse_document
    from localcrag.ingest.pdftables import MIN_RULES, _rules, load_pymupdf, page_tables

    pymupdf = load_pymupdf()
    print(f"imports: {time.process_time() - T0:.2f} CPU s")
    print(f"layout model loaded: {pymupdf._get_layout is not None}")

    def tables(page: object) -> int:
        if layout:
            return len(page.find_tables().tables)  # type: ignore[attr-defined]
        return len(page_tables(page, "x.pdf"))

    for path in pdfs:
        doc = pymupdf.open(path)
        ruled = [p for p in doc.pages() if len(_rules(p)) >= MIN_RULES]
        if ruled:
            tables(ruled[0])  # warm-up: lazy imports and first-call set-up
        runs, found = [], []
        for _ in range(3):
            t = time.process_time()
            found = [(p.number + 1, tables(p)) for p in ruled]
            runs.append(time.process_time() - t)
        parse = []
        for _ in range(3 if not layout else 0):
            t = time.process_time()
            parse_document(path)
            parse.append(time.process_time() - t)
        per = min(runs) / max(len(ruled), 1)
        how = "find_tables() with the layout model" if layout else "page_tables"
        print(
            f"{path.name}: {doc.page_count} pages, {len(ruled)} ruled; tables per ruled page "
            f"{dict(found)}; {how}: {min(runs):.2f} CPU s ({per:.3f} per ruled page)"
            + (f"; parse_document: {min(parse):.2f} CPU s" if parse else "")
        )
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
