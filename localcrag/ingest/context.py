"""What a reader gets besides the file's bytes (``ReadContext``): limits, OCR settings,
page progress. Apart from ``files`` (what a reader returns) because it reads the limits,
which read the settings: only a parse needs them, not `localcrag --help`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the limits import pydantic settings: loaded when a context is made
    from localcrag.ingest.limits import Limits


@dataclass(frozen=True)
class ReadContext:
    """What a reader may need beyond the bytes: limits, OCR settings, page progress."""

    limits: Limits = field(default_factory=lambda: _limits()())
    ocr: str = "auto"  # auto: pages without a text layer; always: every page; never
    ocr_dpi: int = 96
    ocr_page_seconds: float = 60.0
    on_page: Callable[[int, int], None] | None = None  # (pages done, of) while OCR runs
    threads: int = 0  # for the OCR engine; 0 = every core
    models_dir: Path | None = None  # where provisioning put the OCR recogniser's int8 copy

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
            settings.models.models_dir,
        )


def _limits() -> type[Limits]:
    from localcrag.ingest.limits import Limits

    return Limits
