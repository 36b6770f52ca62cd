"""OCR of scanned PDF pages and image files, with inputs made at test time from
AI_Information.pdf (pages rendered with PyMuPDF; nothing binary in the repo). The network
is blocked for every test (conftest), so these also show the OCR models need no download."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from bench.ocr import image_only_pdf
from localcrag.crag.retrieve import Retriever
from localcrag.errors import BadDocument
from localcrag.ingest.context import ReadContext
from localcrag.ingest.library import Library
from localcrag.ingest.limits import Limits
from localcrag.ingest.parse import parse_document
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder

SCANNED = [2, 3]  # 0-based pages of AI_Information.pdf that become images; page 5 keeps its text
SLOW_OK = 900.0  # the page budget in tests: a shared machine may be many times slower than idle


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{3,}", text.lower()))


def _first_sentence(text: str) -> str:
    """The rule for a distinctive phrase: the page's first sentence of 8+ words, 12 words."""
    for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
        if len(sentence.split()) >= 8:
            return " ".join(sentence.split()[:12])
    raise AssertionError("no sentence of 8+ words")


@pytest.fixture(scope="module")
def mixed(ai_pdf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two scanned pages followed by one page with its text layer."""
    folder = tmp_path_factory.mktemp("scan")
    scan = image_only_pdf(ai_pdf, folder / "scan-part.pdf", pages=SCANNED)
    with pymupdf.open(scan) as out, pymupdf.open(ai_pdf) as src:
        out.insert_pdf(src, from_page=4, to_page=4)
        out.save(folder / "mixed.pdf")
    return folder / "mixed.pdf"


@pytest.fixture(scope="module")
def parsed(mixed: Path):
    seen: list[tuple[int, int]] = []
    doc = parse_document(
        mixed, ctx=ReadContext(ocr_page_seconds=SLOW_OK, on_page=lambda d, n: seen.append((d, n)))
    )
    return doc, seen


def test_mixed_pdf_ocrs_only_the_pages_without_text(parsed, ai_pdf: Path) -> None:
    doc, seen = parsed
    assert [(p.number, p.unit) for p in doc.pages] == [(1, "ocr"), (2, "ocr"), (3, "")]
    assert seen == [(1, 2), (2, 2)]  # progress per OCR'd page
    with pymupdf.open(ai_pdf) as src:
        for page, number in zip(doc.pages[:2], SCANNED):
            truth = _words(src[number].get_text())
            assert len(truth & _words(page.text)) >= 0.9 * len(truth)
    assert doc.locator(0, 10) == "p. 1 (OCR)"
    assert doc.locator(doc.page_starts[1], doc.page_starts[2] + 5) == "pp. 2\u20133 (partly OCR)"
    assert "Retail" in [h.title for h in doc.headings]  # a subheading OCR cannot see as bold


def test_search_finds_the_scanned_page_of_distinctive_phrases(mixed: Path, ai_pdf: Path) -> None:
    with pymupdf.open(ai_pdf) as src:
        phrases = [(i + 1, _first_sentence(src[n].get_text())) for i, n in enumerate(SCANNED)]
    settings = Settings(ocr_page_seconds=SLOW_OK)
    lib = Library(settings, embedder=FakeEmbedder())
    assert lib.ingest([mixed]).indexed == [str(mixed.resolve())]
    retriever = Retriever(settings, library=lib)
    for page, phrase in phrases:
        hit = retriever.search(phrase, k=1)[0]
        assert hit.chunk.page == page and hit.chunk.locator.endswith("(OCR)"), (phrase, hit.chunk)


def test_ocr_never_and_always(mixed: Path) -> None:
    with pytest.raises(BadDocument, match="image files are read only by OCR"):
        parse_document(_png(mixed, mixed.parent / "p.png"), ctx=ReadContext(ocr="never"))
    doc = parse_document(mixed, ctx=ReadContext(ocr="never"))
    assert [p.number for p in doc.pages] == [3]
    assert any("page(s) 1-2 have only images" in w and 'ocr = "auto"' in w for w in doc.warnings)


def _png(pdf: Path, out: Path, page: int = 0, dpi: int = 100, top: float = 1.0) -> Path:
    """A page (its ``top`` share only, to keep OCR short) as an image file."""
    with pymupdf.open(pdf) as doc:
        r = doc[page].rect
        doc[page].get_pixmap(
            dpi=dpi, clip=pymupdf.Rect(r.x0, r.y0, r.x1, r.y0 + r.height * top)
        ).save(out)
    return out


def test_image_files_and_multi_frame_tiff(mixed: Path, tmp_path: Path) -> None:
    from PIL import Image

    pngs = [_png(mixed, tmp_path / f"f{i}.png", page=i, top=0.3) for i in (0, 1)]
    doc = parse_document(pngs[0], ctx=ReadContext(ocr_page_seconds=SLOW_OK))
    assert [(p.number, p.unit) for p in doc.pages] == [(1, "ocr")]
    assert "transportation" in doc.text.lower() and doc.locator(0, 5) == "p. 1 (OCR)"
    frames = [Image.open(p) for p in pngs]
    frames[0].save(tmp_path / "two.tiff", save_all=True, append_images=frames[1:])
    tiff = parse_document(tmp_path / "two.tiff", ctx=ReadContext(ocr_page_seconds=SLOW_OK))
    assert [p.number for p in tiff.pages] == [1, 2] and "privacy" in tiff.pages[1].text.lower()


def test_pixel_limit_and_time_budget_are_one_line_each(mixed: Path, tmp_path: Path) -> None:
    png = _png(mixed, tmp_path / "big.png", dpi=150)  # 1241 x 1754 pixels
    with pytest.raises(BadDocument) as exc:
        parse_document(png, ctx=ReadContext(Limits(max_image_pixels=1_000_000)))
    msg = str(exc.value)
    assert (
        "big.png" in msg
        and "1,000,000 pixels" in msg
        and "max_image_pixels" in msg
        and "\n" not in msg
    )
    doc = parse_document(
        mixed,
        ctx=ReadContext(Limits(max_image_pixels=1_000_000), ocr_dpi=150, ocr_page_seconds=SLOW_OK),
    )
    assert [p.number for p in doc.pages] == [3]  # the scanned pages are skipped, the text page kept
    assert any("page 1 skipped" in w and "max_image_pixels" in w for w in doc.warnings)
    doc = parse_document(mixed, ctx=ReadContext(ocr_page_seconds=0.001))
    assert [p.number for p in doc.pages] == [3]
    assert [w for w in doc.warnings if "OCR took over 0.001 s" in w and "ocr_page_seconds" in w]


def test_ocr_always_reads_pages_that_have_a_text_layer(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page(width=400, height=200).insert_text(
        (20, 100), "Quokkas smile at visitors on Rottnest Island.", fontsize=14
    )
    doc.save(tmp_path / "typed.pdf")
    auto = parse_document(tmp_path / "typed.pdf")
    assert auto.pages[0].unit == "" and "Quokkas" in auto.text
    always = parse_document(
        tmp_path / "typed.pdf", ctx=ReadContext(ocr="always", ocr_page_seconds=SLOW_OK)
    )
    assert always.pages[0].unit == "ocr" and "rottnest island" in always.text.lower()
