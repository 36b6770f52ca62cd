"""What an ingest reports: per-file progress (with rate and ETA) and the final report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class IngestProgress:
    done: int  # files finished (indexed, unchanged or failed)
    total: int
    path: str
    stage: str  # reading | ocr | parsed | embedding | indexed | unchanged | failed | removed
    chunks_done: int = 0  # while embedding: chunks of this round embedded so far ...
    chunks_total: int = 0  # ... of this many
    rate: float = 0.0  # chunks per second, while embedding
    pages_done: int = 0  # stage "ocr": pages of this file read by OCR so far ...
    pages_total: int = 0  # ... of this many
    files_per_s: float = 0.0  # files parsed and embedded per second so far
    eta_s: float | None = None  # seconds left (by bytes still to read), once measurable


@dataclass
class IngestReport:
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # indexed, with a caveat
    skipped: list[str] = field(default_factory=list)  # unsupported files found in folders
    excluded: list[str] = field(default_factory=list)  # removed by the user: kept out
    chunks: int = 0  # chunks now in the index
    new_chunks: int = 0  # chunks embedded by this run
    pages: int = 0  # pages parsed by this run

    def to_json(self) -> dict:
        return {
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "failed": [{"path": p, "error": e} for p, e in self.failed],
            "warnings": [{"path": p, "warning": w} for p, w in self.warnings],
            "excluded": self.excluded,
            "chunks": self.chunks,
        }


class Rate:
    """Files per second and an ETA from the bytes of work done so far (unchanged files cost
    nothing, so they leave the remaining work, not the rate)."""

    def __init__(self, total_bytes: int) -> None:
        self.t0 = time.monotonic()
        self.left = total_bytes  # bytes still to parse and embed
        self.done = 0  # bytes parsed and embedded
        self.files = 0

    def finished(self, size: int, worked: bool) -> None:
        self.left -= size
        if worked:
            self.done += size
            self.files += 1

    def now(self) -> tuple[float, float | None]:
        """(files per second, seconds left or None before anything was measured)."""
        elapsed = max(time.monotonic() - self.t0, 1e-9)
        if not self.done:
            return 0.0, None
        return self.files / elapsed, max(self.left, 0) / (self.done / elapsed)


def rate_eta(p: IngestProgress) -> str:
    """ " · 3.2 files/s · ~1 min 40 s left" once measured; "" before."""
    per_s, eta = p.files_per_s, p.eta_s
    if not per_s or eta is None:
        return ""
    left = (
        f"{eta:.0f} s"
        if eta < 90
        else f"{eta // 60:.0f} min {eta % 60:.0f} s"
        if eta < 3600
        else f"{eta // 3600:.0f} h {eta % 3600 // 60:.0f} min"
    )
    # never "0.0 files/s"
    speed = f"{per_s:.1f} files/s" if per_s >= 0.1 else f"{1 / per_s:.0f} s/file"
    return f" · {speed} · ~{left} left"
