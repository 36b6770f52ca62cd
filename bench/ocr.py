"""Section 12: OCR — seconds per page, and whether search finds the same page on a scan.

The scan is made at run time: every page of AI_Information.pdf rendered to a 150 dpi image
and put on an image-only PDF page of the same size (no text layer). OCR time is measured on
parsing that file at the default settings (``ocr_dpi``, all cores, the models/ folder's int8
recogniser when provisioned) under the heap an ingest sets (``ingest/heap.py``; alone, this
section would otherwise run under glibc's own and read ~1 s a page less than an ingest pays):
process CPU seconds and wall seconds, per page. Search: the phrases are chosen by a rule fixed before any result
was seen — on 10 pages spread evenly over the document (0-based page round(i*(N-1)/9)),
the first sentence of the text layer with at least 8 words whose first 12 words occur once
in the whole document, cut to those 12 words. (Once: a phrase the document prints twice,
a running title or a sentence repeated in a summary, has two right pages, and the target
would count a search that found the other one as a miss.)
Each phrase is searched (hybrid, k=1, as `localcrag search PHRASE -k 1`) in an index of
the text-layer PDF and in one of the scan; the target counts the phrases for which the
scan's top hit starts on the same page as the text layer's top hit. Shown beside it: how
often each top hit's page span holds the phrase's own page (a chunk that starts on the
page before is named by its first page).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from bench import DATA, Row, Section, fmt, log, temp_home

SOURCE = DATA / "ai-information" / "AI_Information.pdf"
SCAN_DPI = 150
N_PHRASES = 10


def image_only_pdf(
    src: Path, dst: Path, dpi: int = SCAN_DPI, pages: list[int] | None = None
) -> Path:
    """A copy of ``src`` whose pages are pictures of the originals (0-based ``pages``)."""
    import pymupdf

    with pymupdf.open(src) as doc, pymupdf.open() as out:
        for i in pages if pages is not None else range(doc.page_count):
            pix = doc[i].get_pixmap(dpi=dpi)
            page = out.new_page(width=doc[i].rect.width, height=doc[i].rect.height)
            page.insert_image(page.rect, pixmap=pix)
        out.save(dst)
    return dst


def phrases(src: Path, n: int = N_PHRASES) -> list[tuple[int, str]]:
    """(1-based page, phrase) by the rule in the module docstring."""
    import pymupdf

    out = []
    with pymupdf.open(src) as doc:
        last = doc.page_count - 1
        whole = " ".join(" ".join(page.get_text().split()) for page in doc).lower()
        for i in range(n):
            number = round(i * last / (n - 1))
            text = " ".join(doc[number].get_text().split())
            for sentence in re.split(r"(?<=[.!?])\s+", text):
                words = sentence.split()
                phrase = " ".join(words[:12])
                if len(words) >= 8 and whole.count(phrase.lower()) == 1:
                    out.append((number + 1, phrase))
                    break
    return out


def _index_pages(pdf: Path, queries: list[str]) -> list[tuple[int, int] | None]:
    """Ingest ``pdf`` into a fresh home; the top hit's (first, last) page for each query."""
    from localcrag.crag.retrieve import Retriever
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    with temp_home("lcbench-ocr-"):
        settings = Settings.load()
        report = Library(settings).ingest([pdf])
        if report.failed:
            raise RuntimeError(report.failed[0][1])
        retriever = Retriever(settings)
        hits = [retriever.search(q, k=1) for q in queries]
        return [(h[0].chunk.page_start, h[0].chunk.page_end) if h else None for h in hits]


def run(quick: bool) -> Section:
    import tempfile

    from localcrag.ingest.context import ReadContext
    from localcrag.ingest.heap import bound_heap
    from localcrag.ingest.parse import parse_document
    from localcrag.settings import Settings

    sec = Section("12. OCR (scanned PDF pages)")
    bound_heap()  # the heap an ingest runs OCR under (Library.ingest sets it), not glibc's own
    settings = Settings.load()
    with tempfile.TemporaryDirectory(prefix="lcbench-scan-") as d:
        scan = image_only_pdf(
            SOURCE, Path(d) / "AI_Information-scan.pdf", pages=[0, 1, 2] if quick else None
        )
        log(f"ocr: parsing {scan.name} at {settings.scans.ocr_dpi} dpi")
        ctx = ReadContext.from_settings(settings)
        cpu, wall = time.process_time(), time.perf_counter()
        doc = parse_document(scan, ctx=ctx)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        import pymupdf

        with pymupdf.open(scan) as pdf:
            n = pdf.page_count  # pages OCR'd, text found on them or not
        per_cpu, per_wall = cpu / max(n, 1), wall / max(n, 1)
        threads = settings.generation.threads or "all"
        sec.tables.append(
            (
                f"OCR of {n} image-only pages ({len(doc.pages)} with text found) rendered "
                f"at {settings.scans.ocr_dpi} dpi (`ocr_dpi`), threads: {threads}",
                [
                    Row("per page", {"CPU s": fmt(per_cpu), "wall s": fmt(per_wall)}),
                    Row("whole file", {"CPU s": fmt(cpu, 1), "wall s": fmt(wall, 1)}),
                ],
            )
        )
        sec.targets.append(
            (
                "OCR <= 3 s CPU per page on 2 cores (default resolution)",
                f"{per_cpu:.2f} s CPU, {per_wall:.2f} s wall",
                per_cpu <= 3.0,
            )
        )
        sec.data.update(ocr_pages=n, ocr_cpu_s=cpu, ocr_wall_s=wall, dpi=settings.scans.ocr_dpi)
        if quick:
            sec.notes.append("--quick: 3 pages OCR'd; the search target runs without --quick")
            return sec
        chosen = phrases(SOURCE)
        queries = [q for _, q in chosen]
        log("ocr: indexing the text-layer PDF and the scan, searching 10 phrases in each")
        text_pages = _index_pages(SOURCE, queries)
        scan_pages = _index_pages(scan, queries)

    def span(hit: tuple[int, int] | None) -> str:
        return "none" if hit is None else str(hit[0]) if hit[0] == hit[1] else f"{hit[0]}-{hit[1]}"

    def holds(hit: tuple[int, int] | None, page: int) -> bool:
        return hit is not None and hit[0] <= page <= hit[1]

    rows = [
        Row(f"p. {page}: {q}", {"text layer": span(tp), "scan (OCR)": span(sp)})
        for (page, q), tp, sp in zip(chosen, text_pages, scan_pages)
    ]
    same = sum(
        tp is not None and sp is not None and sp[0] == tp[0]
        for tp, sp in zip(text_pages, scan_pages)
    )
    text_in = sum(holds(tp, page) for (page, _), tp in zip(chosen, text_pages))
    scan_in = sum(holds(sp, page) for (page, _), sp in zip(chosen, scan_pages))
    sec.tables.append(
        (
            "Top hit's pages per phrase (rule: on 10 evenly spread pages, the first 8+ word "
            "sentence whose first 12 words occur once in the document, those 12 words)",
            rows,
        )
    )
    sec.targets.append(
        (
            "search on the scan finds the text layer's page for >= 9 of 10 phrases "
            "(each printed once in the document)",
            f"{same} of {len(chosen)} (hit holds the phrase's page: text layer "
            f"{text_in}, scan {scan_in})",
            same >= 9,
        )
    )
    sec.data.update(phrases=len(chosen), scan_same=same, text_holds=text_in, scan_holds=scan_in)
    return sec
