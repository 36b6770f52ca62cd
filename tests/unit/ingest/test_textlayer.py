"""PDF pages whose text layer is not text: judged from the page's own characters, read by
OCR under ``ocr = "auto"``, named in a warning line otherwise and by ``localcrag doctor``.
Every PDF is built here with PyMuPDF: a font whose ToUnicode map is removed (its glyphs
extract as glyph numbers, or U+FFFD) or replaced by one into the private-use area, beside
pages that must stay text (figures and codes, other languages, mathematics)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from localcrag.ingest import doctor
from localcrag.ingest.context import ReadContext
from localcrag.ingest.library import Library
from localcrag.ingest.parse import parse_document
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder

NOT_READ = "not read"  # files.NOT_READ, as the warning line says it
SLOW_OK = 900.0  # the OCR page budget in tests: a shared machine may be many times slower
SIZE = {"width": 420, "height": 160}  # small pages: OCR takes a fraction of a second each
WOMBATS = "Wombats dig burrows under the eucalyptus."
QUOKKAS = "Quokkas smile at visitors on Rottnest Island."
PLATYPUS = "Platypus lay eggs in riverbank tunnels."


def _unmapped(doc: pymupdf.Document, text: str) -> None:
    """A page in an embedded CID font (Identity-H) without a ToUnicode map: it renders, and
    its text extracts as glyph numbers ("8PNCBUT\x01EJH" for "Wombats dig"). Made in a
    document of its own: its font is not shared with the pages before it."""
    with pymupdf.open() as alone:
        page = alone.new_page(**SIZE)
        page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
        page.insert_text((20, 80), text, fontsize=14, fontname="F0")
        alone.subset_fonts()
        for xref, *_ in page.get_fonts():
            alone.xref_set_key(xref, "ToUnicode", "null")
        doc.insert_pdf(alone)


def _private_use(doc: pymupdf.Document, text: str) -> None:
    """A page whose font's ToUnicode map sends every code into the private-use area."""
    page = doc.new_page(**SIZE)
    page.insert_text((20, 80), text, fontsize=14, fontname="cour")
    pairs = "\n".join(f"<{c:02X}> <{0xE000 + c:04X}>" for c in range(0x20, 0x7F))
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"95 beginbfchar\n{pairs}\nendbfchar\nendcmap end end"
    )
    for xref, *_ in page.get_fonts():
        stream = doc.get_new_xref()
        doc.update_object(stream, "<<>>")
        doc.update_stream(stream, cmap.encode(), new=True)
        doc.xref_set_key(xref, "ToUnicode", f"{stream} 0 R")


def _typed(doc: pymupdf.Document, lines: list[str], **kw: object) -> None:
    page = doc.new_page(**SIZE)
    for i, line in enumerate(lines):
        page.insert_text((20, 30 + 16 * i), line, fontsize=11, **kw)  # type: ignore[arg-type]


def _embedded(doc: pymupdf.Document, lines: list[str]) -> None:
    page = doc.new_page(**SIZE)
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_text((20, 30), "\n".join(lines), fontsize=11, fontname="F0")


@pytest.fixture
def junk_pdf(tmp_path: Path) -> Path:
    """p. 1 unmapped glyphs, p. 2 a good page, p. 3 private-use characters."""
    doc = pymupdf.open()
    _unmapped(doc, WOMBATS)
    _typed(doc, [QUOKKAS])
    _private_use(doc, PLATYPUS)
    doc.save(tmp_path / "junk.pdf")
    return tmp_path / "junk.pdf"


def _words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


def test_pages_whose_text_layer_is_not_text_are_read_by_ocr(junk_pdf: Path) -> None:
    with pymupdf.open(junk_pdf) as doc:  # what today's text layer gives: nothing to find
        assert "wombats" not in doc[0].get_text().lower()
        assert "platypus" not in doc[2].get_text().lower()
    parsed = parse_document(junk_pdf, ctx=ReadContext(ocr_page_seconds=SLOW_OK))
    assert [(p.number, p.unit) for p in parsed.pages] == [(1, "ocr"), (2, ""), (3, "ocr")]
    assert len(_words(WOMBATS) & _words(parsed.pages[0].text)) >= 5
    assert len(_words(PLATYPUS) & _words(parsed.pages[2].text)) >= 5
    assert parsed.pages[1].text == QUOKKAS  # the good page keeps its text layer
    assert "\ufffd" not in parsed.text and not any("\ue000" <= c <= "\uf8ff" for c in parsed.text)
    assert parsed.locator(0, 10) == "p. 1 (OCR)"
    [line] = parsed.warnings
    assert "junk.pdf: page(s) 1, 3 read by OCR: their text layer is not text" in line
    assert "have no Unicode mapping" in line


def test_without_ocr_a_warning_names_the_pages_and_the_fix(junk_pdf: Path) -> None:
    parsed = parse_document(junk_pdf, ctx=ReadContext(ocr="never"))
    assert [p.number for p in parsed.pages] == [1, 2, 3]  # nothing more is lost than before
    [line] = parsed.warnings
    assert f"junk.pdf: page(s) 1, 3 {NOT_READ}: their text layer is not text" in line
    assert 'set ocr = "auto"' in line


def test_figures_other_languages_and_mathematics_are_text(tmp_path: Path) -> None:
    from localcrag.ingest.textlayer import garbage

    doc = pymupdf.open()
    _typed(  # a table of figures and codes: digits, short tokens, few words
        doc,
        [
            "CODE   2019      2020      2021     %CHG",
            "A-17   12,345    11,200    9,876.5  -12.1",
            "B/04   0.0031    0.0029    0.0030   +3.4",
            "ZX9Q   1.2E-05   4,410     (1,020)  n/a",
            "Q3-FY  $8,003    $7,771    $6,500   -16.4",
            "TOTAL  21,349    19,000    17,406   -8.4",
        ],
        fontname="cour",
    )
    _typed(
        doc,
        [
            "Die Größenordnung der Straßenbäume überraschte die Behörde.",
            "L'élève a reçu une note très élevée à l'école, déjà en août.",
            "El niño pequeño comió piña y jamón en la montaña.",
        ],
    )
    _embedded(  # in an embedded font with its ToUnicode map
        doc,
        [
            "Zażółć gęślą jaźń; příliš žluťoučký kůň úpěl ďábelské ódy.",
            "Съешь же ещё этих мягких французских булок, да выпей чаю.",
            "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
        ],
    )
    _embedded(
        doc,
        [
            "∑ αᵢ xᵢ ≤ ∫ f(x) dx ≥ 0,  ∀ε > 0 ∃δ > 0: |f(x) − f(y)| < ε",
            "∇·E = ρ/ε₀,  ∂u/∂t = κ ∇²u,  λ ∈ ℝ, Σ ⊂ ℂⁿ",
        ],
    )
    _unmapped(doc, WOMBATS)
    doc.subset_fonts()
    doc.save(tmp_path / "mixed.pdf")
    with pymupdf.open(tmp_path / "mixed.pdf") as pdf:
        texts = [p.get_text("text", flags=pymupdf.TEXT_MEDIABOX_CLIP) for p in pdf]
    assert "Größenordnung" in texts[1] and "французских" in texts[2] and "∀ε" in texts[3]
    assert [garbage([t]) is None for t in texts] == [True] * 4 + [False]
    parsed = parse_document(tmp_path / "mixed.pdf", ctx=ReadContext(ocr="never"))
    [line] = parsed.warnings
    assert f"page(s) 5 {NOT_READ}" in line


def test_characters_that_are_not_text() -> None:
    from localcrag.ingest.textlayer import garbage

    assert garbage(["\x01\x01 \x01\x01\x01 Total"]) is not None  # control characters
    assert garbage(["\ufffd" * 30]) is not None  # unmapped glyphs
    assert garbage(["ĂŶŶƵĂů ƌĞƉŽƌƚ ŽĨ ƚŚĞ ďŽĂƌĚ"]) is not None  # glyph numbers as letters
    swapped = "".join(chr(ord(c) << 8) for c in "Multicolor Black")
    assert garbage([swapped]) is not None  # a UTF-16 map with its bytes swapped
    assert garbage(["", "   "]) is None
    assert garbage(["• Item \uf0b7 one two three four five six"]) is None  # a Symbol bullet
    assert garbage(["Nguyễn Văn A sống ở Hà Nội, Việt Nam."]) is None
    assert garbage(["北京是中华人民共和国的首都。"]) is None


def test_doctor_names_documents_with_pages_not_read(junk_pdf: Path, tmp_path: Path) -> None:
    lib = Library(Settings(ocr="never"), embedder=FakeEmbedder())
    report = lib.ingest([junk_pdf])
    assert report.indexed == [str(junk_pdf.resolve())]
    assert [w for _, w in report.warnings if NOT_READ in w]
    up = doctor.check(lib.store)
    assert up.ok  # the index itself is sound
    assert [p for p, _ in up.unread] == [str(junk_pdf.resolve())]
    assert "page(s) 1, 3" in up.unread[0][1]
    assert up.to_json()["unread"] == [{"path": p, "warning": w} for p, w in up.unread]
    doc = pymupdf.open()
    _typed(doc, [QUOKKAS])
    doc.save(junk_pdf)  # the file re-exported with its text: read, and no longer named
    assert lib.ingest([junk_pdf]).indexed == [str(junk_pdf.resolve())]
    assert doctor.check(lib.store).unread == []
