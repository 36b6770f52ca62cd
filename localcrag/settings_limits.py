"""The limits every ingested file is held to (hostile or broken inputs), as settings.

Apart from settings.py so the model stays short; ``Settings`` inherits these fields, so
they are read from config.toml and ``LOCALCRAG_<FIELD>`` like every other setting. Each
limit, when hit, is one line naming the file, the limit and this setting's name.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

LIMIT_FIELDS = ("max_file_chars", "max_pages", "max_image_pixels", "max_archive_bytes",
                "max_archive_ratio")


class LimitSettings(BaseModel):
    """Bounds on one file's size, so one file never exhausts memory or time."""

    max_file_chars: int = Field(
        5_000_000, ge=1_000,
        description=("Largest document in characters of text (~1,250 pages; indexing runs at "
                     "~50,000 characters/s); a bigger file is skipped with one line."),
    )
    max_pages: int = Field(
        5_000, ge=1, description="Largest PDF or EPUB in pages; a longer one is skipped.",
    )
    max_image_pixels: int = Field(
        50_000_000, ge=1_000_000,
        description="Largest image (width x height) read for OCR; a bigger one is skipped.",
    )
    max_archive_bytes: int = Field(
        200_000_000, ge=1_000_000,
        description=("Largest total uncompressed size of a zip-based document (EPUB, .docx, "
                     ".pptx, .xlsx), checked before it is opened."),
    )
    max_archive_ratio: float = Field(
        100.0, ge=2.0,
        description=("Largest uncompressed/compressed size ratio of a zip-based document: "
                     "a zip bomb inflates far beyond any real document's ~3-10x."),
    )
