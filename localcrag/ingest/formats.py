"""The one registry of document formats: file extension -> reader, plus what a reader gets.

``parse.parse_document`` looks the reader up here (no if-ladder), ``SUPPORTED`` (what a
folder walk picks up) and the formats list in messages come from here, so a new format is
one entry and one reader. Readers are named ``"module:function"`` and imported only when
a file of that type is read (python-docx, openpyxl, the OCR engine load only when needed).

A reader is ``read(path, data, ctx) -> (pages, warnings)``: ``pages`` are ``RawPage`` (or
plain (number, paragraphs) pairs for printed pages), ``warnings`` one line each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localcrag.ingest.files import bad

if TYPE_CHECKING:  # the limits import pydantic settings: not for `localcrag --help`
    from localcrag.ingest.limits import Limits


@dataclass(frozen=True)
class Format:
    reader: str  # "module:function"
    binary: bool  # True: bytes go to the reader as they are; False: text, decoded by the reader
    empty: str = "no extractable text"  # why a file that yields no text is refused
    # What a source's stored count (its highest page number) counts, singular; "" when that
    # number is no count a reader knows (.docx: its last table, or 1 for text only).
    unit: str = "page"
    # The file has no title of its own (no properties, no marked headings): a short title
    # line it opens with names it (about.from_opening). Markdown names itself by its headings.
    titled_by_opening: bool = False


_P = "localcrag.ingest."
_NO_MARKUP_TEXT = "no text (only whitespace or markup)"
FORMATS: dict[str, Format] = {
    ".pdf": Format(_P + "pdf:read_pdf", True),
    ".epub": Format(_P + "pdf:read_epub", True),
    ".txt": Format(_P + "markup:read_plain", False, _NO_MARKUP_TEXT, titled_by_opening=True),
    ".md": Format(_P + "markup:read_markdown", False, _NO_MARKUP_TEXT),
    ".markdown": Format(_P + "markup:read_markdown", False, _NO_MARKUP_TEXT),
    ".html": Format(_P + "markup:read_html", False, _NO_MARKUP_TEXT),
    ".htm": Format(_P + "markup:read_html", False, _NO_MARKUP_TEXT),
    ".docx": Format(_P + "office:read_docx", True, "no text in the document", ""),
    ".pptx": Format(_P + "office:read_pptx", True, "no text on any slide or in the notes", "slide"),
    ".xlsx": Format(
        _P + "sheets:read_xlsx", True, "no cells with values", "row"
    ),  # the longest sheet's last
    ".csv": Format(_P + "sheets:read_csv", False, "no rows with values", "row"),
    ".png": Format(_P + "ocr:read_image", True, "no text found by OCR", titled_by_opening=True),
    ".jpg": Format(_P + "ocr:read_image", True, "no text found by OCR", titled_by_opening=True),
    ".jpeg": Format(_P + "ocr:read_image", True, "no text found by OCR", titled_by_opening=True),
    ".tif": Format(_P + "ocr:read_image", True, "no text found by OCR", titled_by_opening=True),
    ".tiff": Format(_P + "ocr:read_image", True, "no text found by OCR", titled_by_opening=True),
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


def reader(ext: str) -> Callable[[Path, Any, ReadContext], tuple[list, list[str]]]:
    module, func = FORMATS[ext].reader.split(":")
    return getattr(import_module(module), func)


@dataclass(frozen=True)
class ReadContext:
    """What a reader may need beyond the bytes: limits, OCR settings, page progress."""

    limits: Limits = field(default_factory=lambda: _limits()())
    ocr: str = "auto"  # auto: pages without a text layer; always: every page; never
    ocr_dpi: int = 96
    ocr_page_seconds: float = 60.0
    on_page: Callable[[int, int], None] | None = None  # (pages done, of) while OCR runs
    threads: int = 0  # for the OCR engine; 0 = every core

    @classmethod
    def from_settings(
        cls, settings: Any, on_page: Callable[[int, int], None] | None = None
    ) -> ReadContext:
        return cls(
            _limits().from_settings(settings),
            settings.scans.ocr,
            settings.scans.ocr_dpi,
            settings.scans.ocr_page_seconds,
            on_page,
            settings.generation.threads,
        )


def _limits() -> type[Limits]:
    from localcrag.ingest.limits import Limits

    return Limits
