"""The limits every ingested file is held to (hostile or broken inputs), as settings.

Apart from settings.py so the model stays short; ``Settings`` inherits these fields, so
they are read from config.toml and ``LOCALCRAG_<FIELD>`` like every other setting. Each
limit, when hit, is one line naming the file, the limit and this setting's name.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

LIMIT_FIELDS = (
    "max_file_chars",
    "max_pages",
    "max_image_pixels",
    "max_archive_bytes",
    "max_archive_ratio",
)


class LimitSettings(BaseModel):
    """Bounds on one file's size, so one file never exhausts memory or time."""

    max_file_chars: int = Field(
        5_000_000,
        ge=1_000,
        description=(
            "Largest document in characters of text (~1,250 pages; indexing runs at "
            "~50,000 characters/s); a bigger file is skipped with one line."
        ),
    )
    max_pages: int = Field(
        5_000,
        ge=1,
        description="Largest PDF or EPUB in pages; a longer one is skipped.",
    )
    max_image_pixels: int = Field(
        50_000_000,
        ge=1_000_000,
        description="Largest image (width x height) read for OCR; a bigger one is skipped.",
    )
    max_archive_bytes: int = Field(
        200_000_000,
        ge=1_000_000,
        description=(
            "Largest total uncompressed size of a zip-based document (EPUB, .docx, "
            ".pptx, .xlsx), checked before it is opened."
        ),
    )
    max_archive_ratio: float = Field(
        100.0,
        ge=2.0,
        description=(
            "Largest uncompressed/compressed size ratio of a zip-based document: "
            "a zip bomb inflates far beyond any real document's ~3-10x."
        ),
    )


class OcrSettings(BaseModel):
    """How scanned pages and images are read (``ingest/ocr.py``): apart from settings.py for
    the same reason as the limits, and read the same way."""

    ocr: Literal["auto", "always", "never"] = Field(
        "auto",
        description=(
            "OCR (RapidOCR, on the CPU) for images and PDF pages: 'auto' = pages "
            "without a text layer; 'always' = every PDF page; 'never'."
        ),
    )
    ocr_dpi: int = Field(
        96, ge=50, le=400, description="Resolution PDF pages are rendered at for OCR."
    )
    ocr_page_seconds: float = Field(
        60.0,
        gt=0.0,
        le=3600.0,
        description="Seconds OCR may take on one page; a slower page is "
        "skipped with a warning line.",
    )
