"""parse.py on real documents and on every kind of bad input (built in tmp_path)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pymupdf
import pytest

from localcrag.errors import BadDocument
from localcrag.ingest.parse import SUPPORTED, parse_document
from localcrag.ingest.walk import content_hash, iter_files
from tests.support import SHARED

DATA = SHARED
AI_PDF = DATA / "ai-information" / "AI_Information.pdf"
ATTENTION = DATA / "ai-information" / "attention_is_all_you_need.pdf"
ARTICLES = DATA / "squad2-dev-subset" / "articles"
needs_data = pytest.mark.skipif(not AI_PDF.exists(), reason=f"shared eval data not found at {DATA}")


def squash(text: str) -> str:
    return " ".join(text.split())


def bad_message(path: Path) -> str:
    with pytest.raises(BadDocument) as info:
        parse_document(path)
    msg = str(info.value)
    assert "\n" not in msg and path.name in msg, msg
    return msg


# --- real documents ------------------------------------------------------------------------


@needs_data
@pytest.mark.parametrize(
    "phrase",
    [
        "Dartmouth Workshop",
        "Chapter 11: AI and Healthcare",
        "Chapter 14: AI and Smart Cities",
        "Chapter 21: The Path Forward for AI",
        "Reskilling and Upskilling",
    ],
)
def test_pdf_page_numbers_match_pymupdf(phrase: str) -> None:
    with pymupdf.open(AI_PDF) as ref:
        expected = [p.number + 1 for p in ref if phrase in squash(p.get_text())]
    assert len(expected) == 1
    doc = parse_document(AI_PDF)
    assert doc.page_at(doc.text.index(phrase)) == expected[0]
    assert [p.number for p in doc.pages] == list(range(1, 16))


@needs_data
def test_pdf_headings_and_page_headings() -> None:
    doc = parse_document(AI_PDF)
    titles = [h.title for h in doc.headings]
    assert sum(t.startswith("Chapter ") for t in titles) == 21
    assert "Historical Context" in titles and "Understanding Artificial Intelligence" in titles
    for h in doc.headings:
        assert doc.text[h.offset : h.offset + len(h.title)] == h.title
    off = doc.text.index("The Dartmouth Workshop")
    assert (
        doc.heading_at(off)
        == "Chapter 1: Introduction to Artificial Intelligence > Historical Context"
    )
    # Chapters set at 16, 17 and 19 pt stay siblings: never "Chapter 20 > Chapter 21".
    assert (
        doc.pages[-1].heading
        == "Understanding Artificial Intelligence > Chapter 21: The Path Forward for AI"
    )
    assert "\n\n" in doc.pages[0].text  # paragraph breaks kept


@needs_data
def test_latex_paper_outline_headings_no_page_numbers() -> None:
    doc = parse_document(ATTENTION)
    titles = [h.title for h in doc.headings]
    assert {"Abstract", "1 Introduction", "3.2.1 Scaled Dot-Product Attention"} <= set(titles)
    assert not any("Vaswani" in t for t in titles)  # bold author names are not headings
    off = doc.text.index("We call our particular attention")
    assert doc.heading_at(off) == "3.2 Attention > 3.2.1 Scaled Dot-Product Attention"
    assert "arXiv:1706.03762" not in doc.text  # rotated margin stamp dropped
    assert "\n\n2\n\n" not in doc.text  # page-number footers dropped
    assert "English-to-German" in doc.text and "transduction" in doc.text


@needs_data
def test_squad_article_txt() -> None:
    doc = parse_document(ARTICLES / "Normans.txt")
    assert len(doc.pages) == 1 and doc.pages[0].number == 1
    assert [h.title for h in doc.headings] == ["Normans"]
    assert doc.text.count("\n\n") >= 30


# --- text formats ------------------------------------------------------------------------


def test_txt_form_feeds_are_pages(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("First page text.\fSecond page.\f\fFourth page here.", encoding="utf-8")
    doc = parse_document(f)
    assert [p.number for p in doc.pages] == [1, 2, 4]
    assert doc.text == "First page text.\n\nSecond page.\n\nFourth page here."
    assert doc.page_at(doc.text.index("Fourth")) == 4


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_txt_boms(tmp_path: Path, encoding: str) -> None:
    f = tmp_path / "bom.txt"
    f.write_bytes("Café crème, naïve résumé.".encode(encoding))
    assert parse_document(f).text == "Café crème, naïve résumé."


def test_a_few_bad_bytes_are_replaced_and_flagged(tmp_path: Path) -> None:
    f = tmp_path / "mostly.txt"
    f.write_bytes(("Plain sentence here. " * 200).encode() + b"caf\xe9.")
    doc = parse_document(f)
    assert "\ufffd" in doc.text and "invalid UTF-8" in doc.warnings[0]


def test_markdown_headings(tmp_path: Path) -> None:
    f = tmp_path / "guide.md"
    f.write_text(
        "---\ntitle: x\n---\n# Guide\n\nIntro text.\n\n## Install ##\n\nRun it.\n\n"
        "```sh\n# not a heading\n```\n\nSetext Title\n------------\n\nBody.\n",
        encoding="utf-8",
    )
    doc = parse_document(f)
    assert [(h.level, h.title) for h in doc.headings] == [
        (1, "Guide"),
        (2, "Install"),
        (2, "Setext Title"),
    ]
    assert "title: x" not in doc.text and "# not a heading" in doc.text
    assert doc.heading_at(doc.text.index("Run it")) == "Guide > Install"


def test_html_skips_script_style_keeps_structure(tmp_path: Path) -> None:
    f = tmp_path / "page.html"
    f.write_text(
        "<html><head><title>My Page</title><style>p {color: red}</style></head><body>"
        "<script>var secret = 1;</script><h2>Section A</h2><p>First   para.</p><p>Second<br>line.</p>"
        "<ul><li>one</li><li>two</li></ul><table><tr><td>a</td><td>b</td></tr></table></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(f)
    assert "secret" not in doc.text and "color" not in doc.text
    assert [(h.level, h.title) for h in doc.headings] == [(1, "My Page"), (2, "Section A")]
    assert "First para.\n\nSecond\nline." in doc.text
    assert "- one\n- two" in doc.text and "a | b" in doc.text


def test_html_declared_charset(tmp_path: Path) -> None:
    f = tmp_path / "old.htm"
    f.write_bytes('<meta charset="iso-8859-1"><p>Café</p>'.encode("latin-1"))
    assert parse_document(f).text == "Café"


def _epub(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
            'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        items = "".join(
            f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
            for i in (1, 2)
        )
        z.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
            'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
            '<dc:identifier id="id">x</dc:identifier><dc:title>T</dc:title><dc:language>en</dc:language>'
            f'</metadata><manifest>{items}</manifest><spine><itemref idref="c1"/><itemref idref="c2"/>'
            "</spine></package>",
        )
        for i in (1, 2):
            body = " ".join(
                f"Sentence {j} of chapter {i} is about lighthouses." for j in range(120)
            )
            z.writestr(
                f"OEBPS/c{i}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html '
                f'xmlns="http://www.w3.org/1999/xhtml"><head><title>c{i}</title></head><body>'
                f"<h1>Chapter {i}: Lights</h1><p>{body}</p></body></html>",
            )


def test_epub(tmp_path: Path) -> None:
    f = tmp_path / "book.epub"
    _epub(f)
    doc = parse_document(f)
    assert [h.title for h in doc.headings] == ["Chapter 1: Lights", "Chapter 2: Lights"]
    assert doc.text.count("lighthouses") == 240
    assert len(doc.pages) > 2 and doc.pages[-1].heading == "Chapter 2: Lights"


# --- bad inputs ----------------------------------------------------------------------------


def _pdf(path: Path, text: str | None = None, image: bool = False, **save) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    if text:
        page.insert_text((72, 72), text)
    if image:
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 16, 16), False)
        pix.clear_with(128)
        page.insert_image(pymupdf.Rect(72, 72, 300, 300), pixmap=pix)
    doc.save(path, **save)
    return path


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("garbage.pdf", b"this is not a pdf " * 40, "corrupt or unreadable PDF"),
        ("empty.pdf", b"", "empty file (0 bytes)"),
        (
            "latin1.txt",
            "Café crème brûlée à la française. ".encode("latin-1") * 20,
            "not UTF-8 text",
        ),
        ("blob.txt", bytes(range(256)) * 8, "binary data, not text"),
        ("blank.md", b"  \n\n \t\n", "no text"),
        ("report.docx", b"PK\x03\x04", "corrupt or unreadable Word file (.docx)"),
        ("deck.pptx", b"not a zip", "corrupt or unreadable PowerPoint file (.pptx)"),
        ("book.xlsx", b"not a zip", "corrupt or unreadable Excel file (.xlsx)"),
        ("photo.png", b"not a png", "corrupt or unreadable image"),
        ("old.doc", b"\xd0\xcf\x11\xe0", "old binary Office format (.doc)"),
        ("old.xls", b"\xd0\xcf\x11\xe0", "save it as .xlsx"),
        ("report.rtf", b"{\\rtf1}", "unsupported file type (.rtf)"),
    ],
)
def test_bad_bytes(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    f = tmp_path / name
    f.write_bytes(content)
    assert reason in bad_message(f)


def test_encrypted_pdf(tmp_path: Path) -> None:
    f = _pdf(
        tmp_path / "locked.pdf",
        "secret",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="u",
        owner_pw="o",
    )
    msg = bad_message(f)
    assert "password-protected (encrypted) PDF" in msg and "qpdf" in msg


def test_image_only_and_blank_pdf(tmp_path: Path) -> None:
    from localcrag.ingest.context import ReadContext

    scan = _pdf(tmp_path / "scan.pdf", image=True)
    with pytest.raises(BadDocument) as exc:
        parse_document(scan, ctx=ReadContext(ocr="never"))
    assert "no extractable text (image-only/scanned PDF)" in str(
        exc.value
    ) and 'ocr = "auto"' in str(exc.value)
    assert "no text found by OCR on its image-only pages" in bad_message(scan)  # a grey square
    assert "no extractable text" in bad_message(_pdf(tmp_path / "blank.pdf"))


def test_unsupported_lists_supported(tmp_path: Path) -> None:
    f = tmp_path / "slides.key"
    f.write_bytes(b"x")
    msg = bad_message(f)
    assert all(ext in msg for ext in SUPPORTED)


def test_missing_folder_and_permission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "file not found" in bad_message(tmp_path / "nope.pdf")
    folder = tmp_path / "docs.pdf"
    folder.mkdir()
    assert "is a folder, not a file" in bad_message(folder)
    f = tmp_path / "private.txt"
    f.write_text("hello", encoding="utf-8")

    def deny(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", deny)
    assert "permission denied" in bad_message(f)


# --- iter_files and hashing ---------------------------------------------------------------


def test_iter_files(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / ".hidden").mkdir()
    for rel in ["b.md", "a.txt", "sub/c.PDF", "sub/skip.key", ".secret.txt", ".hidden/x.txt"]:
        (root / rel).write_text("x", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.odt").write_text("x", encoding="utf-8")
    files, errors = iter_files(
        [root, root / "a.txt", tmp_path / "empty", tmp_path / "notes.odt", tmp_path / "gone.txt"]
    )
    assert files == [
        (root / "a.txt").resolve(),
        (root / "b.md").resolve(),
        (root / "sub" / "c.PDF").resolve(),
    ]
    reasons = {p.name: msg for p, msg in errors}
    assert set(reasons) == {"empty", "notes.odt", "gone.txt"}
    assert "folder has no supported files" in reasons["empty"]
    assert "unsupported file type (.odt)" in reasons["notes.odt"]
    assert "file not found" in reasons["gone.txt"]
    assert all("\n" not in m for m in reasons.values())


def test_content_hash(tmp_path: Path) -> None:
    f = tmp_path / "big.txt"
    data = b"abc" * 700_000
    f.write_bytes(data)
    assert content_hash(f) == hashlib.sha256(data).hexdigest()


def test_iter_files_collects_unsupported_files_found_in_folders(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    (tmp_path / "skip.key").write_text("x", encoding="utf-8")
    (tmp_path / ".hidden.png").write_text("x", encoding="utf-8")
    skipped: list[Path] = []
    files, errors = iter_files([tmp_path], skipped)
    assert [f.name for f in files] == ["a.txt"] and not errors
    assert [p.name for p in skipped] == ["skip.key"]  # hidden files are not reported


def test_an_html_definition_list_reads_as_term_colon_definition(tmp_path: Path) -> None:
    """A codebook's <dl> (R's help pages): each term and its definition on one line, so the
    line that defines a column's name is found ("mealpct: percent qualifying ...")."""
    f = tmp_path / "codebook.html"
    f.write_text(
        "<html><body><h2>Format</h2><dl><dt>mealpct</dt><dd><p>percent qualifying for "
        "reduced-price lunch</p>\n</dd><dt>str</dt><dd><p>student teacher ratio</p></dd>"
        "<dt>lonely</dt></dl><p>After.</p></body></html>",
        encoding="utf-8",
    )
    text = parse_document(f).text
    assert "mealpct: percent qualifying for reduced-price lunch" in text
    assert "str: student teacher ratio" in text
    assert "lonely" in text and "After." in text


def test_columns_drawn_line_by_line_read_column_by_column(tmp_path: Path) -> None:
    """Some PDFs draw a multi-column page line by line across the columns (the IRS's
    instructions do), and MuPDF puts both columns' lines in one block: each column is read
    top to bottom. A label beside its value is no column and reads as drawn."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i in range(12):
        page.insert_text((50, 100 + 12 * i), f"left column sentence {i} goes on here", fontsize=10)
        page.insert_text(
            (320, 100 + 12 * i), f"right column words in line {i} as well", fontsize=10
        )
    for i, (label, value) in enumerate([("Supply voltage", "3.3 V"), ("Supply current", "12 mA")]):
        page.insert_text((50, 300 + 12 * i), label, fontsize=10)
        page.insert_text((320, 300 + 12 * i), value, fontsize=10)
    doc.save(tmp_path / "columns.pdf")
    text = " ".join(parse_document(tmp_path / "columns.pdf").text.split())
    left = " ".join(f"left column sentence {i} goes on here" for i in range(12))
    right = " ".join(f"right column words in line {i} as well" for i in range(12))
    assert f"{left} {right}" in text
    assert "Supply voltage 3.3 V Supply current 12 mA" in text
