"""Per-file limits, checked before the expensive step: one line naming the file, the limit
and the setting that raises it (why: a 50 MB single-line text or a 2 MB EPUB that inflates
to 900 MB used to take the whole machine's memory and stop the rest of the folder).

``check_zip`` is the one archive check for every zip-based format (EPUB, .docx, .pptx,
.xlsx): it reads only the zip's central directory, never a member.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from localcrag.errors import BadDocument
from localcrag.ingest.files import bad
from localcrag.settings.groups import LimitSettings

if TYPE_CHECKING:
    from localcrag.settings import Settings

_DEFAULTS = LimitSettings()
RATIO_FLOOR = 10_000_000  # an archive expanding to less is harmless whatever its ratio


@dataclass(frozen=True)
class Limits:
    max_file_chars: int = _DEFAULTS.max_file_chars
    max_pages: int = _DEFAULTS.max_pages
    max_image_pixels: int = _DEFAULTS.max_image_pixels
    max_table_cells: int = _DEFAULTS.max_table_cells
    max_table_seconds: float = _DEFAULTS.max_table_seconds
    max_sheet_cells: int = _DEFAULTS.max_sheet_cells
    max_archive_bytes: int = _DEFAULTS.max_archive_bytes
    max_archive_ratio: float = _DEFAULTS.max_archive_ratio

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        """The ``limits`` group of ``settings``."""
        group = settings.limits.model_dump()
        return cls(**{f: group[f] for f in cls.__dataclass_fields__})


def over_limit(path: Path, what: str, limit: str, setting: str) -> BadDocument:
    """The one message shape for every limit: file, what it has, the limit, the setting."""
    return bad(
        path,
        f"{what}, over the limit of {limit}",
        f"skipped; raise the setting limits.{setting} (config.toml or LOCALCRAG_{setting.upper()}) "
        "to index it",
    )


def _n(value: float) -> str:
    return f"{value:,.0f}"


def check_chars(
    path: Path, n_chars: int, limits: Limits, at_least: bool = False, of: str = ""
) -> None:
    """Text longer than ``max_file_chars`` (``at_least``: the count stopped early; ``of``:
    what the characters are, when not the file's own text)."""
    if n_chars > limits.max_file_chars:
        what = f"{'more than ' if at_least else ''}{_n(n_chars)} characters{of}"
        raise over_limit(path, what, f"{_n(limits.max_file_chars)} characters", "max_file_chars")


def check_text_size(path: Path, n_bytes: int, limits: Limits) -> None:
    """Before reading a text file: UTF-8 takes at most 4 bytes per character, so a file
    above 4x the character limit is over it whatever it holds (no need to read it)."""
    if n_bytes > 4 * limits.max_file_chars:
        raise over_limit(
            path,
            f"{n_bytes / 1e6:,.1f} MB of text (at least {_n(n_bytes // 4)} characters)",
            f"{_n(limits.max_file_chars)} characters",
            "max_file_chars",
        )


def check_pages(path: Path, n_pages: int, limits: Limits) -> None:
    if n_pages > limits.max_pages:
        raise over_limit(path, f"{_n(n_pages)} pages", f"{_n(limits.max_pages)} pages", "max_pages")


def check_cells(path: Path, rows: int, columns: int, cells: int, limits: Limits) -> None:
    """A spreadsheet or CSV grid of more than ``max_sheet_cells`` cells, counted as rows
    stream in (``cells``: those read so far, at least ``rows`` x ``columns``), so a sheet
    of a million rows stops at the limit instead of being read, tabled and embedded."""
    if cells > limits.max_sheet_cells:
        raise over_limit(
            path,
            f"at least {_n(cells)} cells ({_n(rows)} rows, {_n(columns)} columns so far)",
            f"{_n(limits.max_sheet_cells)} cells",
            "max_sheet_cells",
        )


def check_pixels(path: Path, width: int, height: int, limits: Limits) -> None:
    """An image (or a page rendered for OCR) larger than ``max_image_pixels``."""
    if width * height > limits.max_image_pixels:
        raise over_limit(
            path,
            f"{width}x{height} image ({_n(width * height)} pixels)",
            f"{_n(limits.max_image_pixels)} pixels",
            "max_image_pixels",
        )


def check_zip(path: Path, data: bytes | None, limits: Limits) -> None:
    """Zip-based documents: the sum of the members' declared uncompressed sizes and its ratio
    to the archive's size, from the central directory only. A member that inflates beyond
    its declared size is stopped by the zip reader itself (CRC/size check). Not a zip at
    all: left to the format's own reader, which reports it as corrupt."""
    try:
        with zipfile.ZipFile(io.BytesIO(data) if data is not None else path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    total = sum(i.file_size for i in infos)
    packed = len(data) if data is not None else Path(path).stat().st_size
    if total > limits.max_archive_bytes:
        raise over_limit(
            path,
            f"archive expands to {total / 1e6:,.0f} MB",
            f"{limits.max_archive_bytes / 1e6:,.0f} MB",
            "max_archive_bytes",
        )
    ratio = total / max(packed, 1)
    if total > RATIO_FLOOR and ratio > limits.max_archive_ratio:
        raise over_limit(
            path,
            f"archive expands {ratio:,.0f}x (a zip bomb?)",
            f"{limits.max_archive_ratio:g}x",
            "max_archive_ratio",
        )
