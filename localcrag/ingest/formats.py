"""The one registry of document formats: file extension -> reader.

``parse.parse_document`` looks the reader up here (no if-ladder), ``SUPPORTED`` (what a
folder walk picks up) and the formats list in messages come from here, so a new format is
one entry and one reader. Each entry holds a reader function; its module (python-docx,
openpyxl, the OCR engine, PyMuPDF and the settings they read) is imported when a file of
that type is read, not when this registry is (`localcrag --help` imports it).

A reader is ``read(path, data, ctx) -> (pages, warnings)``: ``pages`` are ``RawPage`` (or
plain (number, paragraphs) pairs for printed pages), ``warnings`` one line each; ``ctx`` is a
``context.ReadContext``. The readers import ``files`` and ``context``, never this module, so
the registry's imports of them make no circle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localcrag.ingest.context import ReadContext
from localcrag.ingest.files import Read, bad

if TYPE_CHECKING:  # the limits import pydantic settings: not for `localcrag --help`
    pass


Got = Read | tuple[list, list[str]]  # a reader that cannot tell what the document is: a pair
Reader = Callable[[Path, Any, "ReadContext"], Got]


def _read_pdf(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.pdf import read_pdf

    return read_pdf(path, data, ctx)


def _read_epub(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.pdf import read_epub

    return read_epub(path, data, ctx)


def _read_plain(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.markup import read_plain

    return read_plain(path, data, ctx)


def _read_markdown(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.markup import read_markdown

    return read_markdown(path, data, ctx)


def _read_html(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.markup import read_html

    return read_html(path, data, ctx)


def _read_docx(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.office import read_docx

    return read_docx(path, data, ctx)


def _read_pptx(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.office import read_pptx

    return read_pptx(path, data, ctx)


def _read_xlsx(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.sheets import read_xlsx

    return read_xlsx(path, data, ctx)


def _read_csv(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.sheets import read_csv

    return read_csv(path, data, ctx)


def _read_image(path: Path, data: Any, ctx: ReadContext) -> Got:
    from localcrag.ingest.ocr import read_image

    return read_image(path, data, ctx)


@dataclass(frozen=True)
class Format:
    reader: Reader  # read(path, data, ctx) -> (pages, warnings)
    binary: bool  # True: bytes go to the reader as they are; False: text, decoded by the reader
    empty: str = "no extractable text"  # why a file that yields no text is refused
    # What a source's stored count (its highest page number) counts, singular; "" when that
    # number is no count a reader knows (.docx: its last table, or 1 for text only).
    unit: str = "page"
    # The file has no title of its own (no properties, no marked headings): a short title
    # line it opens with names it (about.from_opening). Markdown names itself by its headings.
    titled_by_opening: bool = False
    # The nouns a question calls a file of this format by ("the python-docx example
    # screenshot", "the deaths workbook"): a passage of such a file holds them
    # (crag/answer/binding), and one of another format does not (a screenshot is no .docx).
    # Nouns any format may be called by ("the report", "the slides": a deck may be a PDF)
    # frame a question and constrain nothing (crag/answer/constraints.FRAMING).
    kinds: tuple[str, ...] = ()


_NO_MARKUP_TEXT = "no text (only whitespace or markup)"
_MARKDOWN = ("markdown", "readme")
_WEB = ("html", "webpage", "website")
_SLIDES = ("pptx", "powerpoint", "slideshow")
_SHEETS = ("xlsx", "excel", "workbook", "worksheet", "sheet")


def _image(ext: str) -> Format:
    kinds = (ext, "screenshot", "image", "picture", "photo", "photograph")
    return Format(_read_image, True, "no text found by OCR", titled_by_opening=True, kinds=kinds)


FORMATS: dict[str, Format] = {
    ".pdf": Format(_read_pdf, True, kinds=("pdf",)),
    ".epub": Format(_read_epub, True, kinds=("epub", "ebook")),
    ".txt": Format(_read_plain, False, _NO_MARKUP_TEXT, titled_by_opening=True, kinds=("txt",)),
    ".md": Format(_read_markdown, False, _NO_MARKUP_TEXT, kinds=_MARKDOWN),
    ".markdown": Format(_read_markdown, False, _NO_MARKUP_TEXT, kinds=_MARKDOWN),
    ".html": Format(_read_html, False, _NO_MARKUP_TEXT, kinds=_WEB),
    ".htm": Format(_read_html, False, _NO_MARKUP_TEXT, kinds=_WEB),
    ".docx": Format(_read_docx, True, "no text in the document", "", kinds=("docx",)),
    ".pptx": Format(
        _read_pptx, True, "no text on any slide or in the notes", "slide", kinds=_SLIDES
    ),
    # a count of rows: the longest sheet's last
    ".xlsx": Format(_read_xlsx, True, "no cells with values", "row", kinds=_SHEETS),
    ".csv": Format(_read_csv, False, "no rows with values", "row", kinds=("csv",)),
    ".png": _image("png"),
    ".jpg": _image("jpg"),
    ".jpeg": _image("jpeg"),
    ".tif": _image("tif"),
    ".tiff": _image("tiff"),
}
# Old binary Office formats: no maintained pure-Python reader; each gets one line saying how.
OLD_BINARY = {".doc": ".docx", ".ppt": ".pptx", ".xls": ".xlsx"}
SUPPORTED = set(FORMATS) | set(OLD_BINARY)  # what a folder walk picks up (old ones for their line)


def supported_text() -> str:
    """The file types a reader is registered for, as messages name them: ".csv, .docx, ..."."""
    return ", ".join(sorted(FORMATS))


def check_old_binary(path: Path) -> None:
    """A .doc/.ppt/.xls is one line naming the format to save it as."""
    ext = path.suffix.lower()
    if ext in OLD_BINARY:
        raise bad(
            path,
            f"old binary Office format ({ext})",
            f"save it as {OLD_BINARY[ext]} with Save As, then ingest that file",
        )


def count_unit(source: str) -> str:
    """The unit of a source's stored count, from its format ("" for none, or an unknown type)."""
    fmt = FORMATS.get(Path(source).suffix.lower())
    return fmt.unit if fmt else ""


def count_text(source: str, n: int) -> str:
    """``15 pages``, ``1 slide``, ``2,400 rows``, or ``—`` when the count means nothing."""
    unit = count_unit(source)
    return f"{n:,} {unit}{'' if n == 1 else 's'}" if unit else "—"


def called(noun: str) -> frozenset[str]:
    """The extensions of the formats ``noun`` (a stem, as ``textutil.stem`` gives it) names
    files of: "screenshot" -> {".png", ".jpg", ...}, "workbook" -> {".xlsx"}; empty for a
    noun no format is called by ("procedure")."""
    return _called_by().get(noun, frozenset())


@lru_cache(maxsize=1)
def _called_by() -> dict[str, frozenset[str]]:
    from localcrag.textutil import base_form, stem

    out: dict[str, set[str]] = {}
    for ext, fmt in FORMATS.items():
        for kind in fmt.kinds:
            out.setdefault(stem(base_form(kind)), set()).add(ext)
    return {k: frozenset(v) for k, v in out.items()}


def reader(ext: str) -> Reader:
    return FORMATS[ext].reader
