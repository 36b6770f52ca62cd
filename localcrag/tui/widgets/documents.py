"""The library screen's pieces that need no screen: the file tree and its texts.

Pure functions of the app's state, so the screen only places them (and tests can call them).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import DirectoryTree

from localcrag.ingest.formats import count_text
from localcrag.ingest.progress import IngestProgress
from localcrag.textutil import shown
from localcrag.tui.widgets.labels import plural


class DocTree(DirectoryTree):
    """A file browser without hidden files; plain glyphs (emoji widths vary between terminals)."""

    ICON_NODE_EXPANDED = "▾ "
    ICON_NODE = "▸ "
    ICON_FILE = "  "

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [p for p in paths if not p.name.startswith(".")]


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "—"


def failure_text(path: str, error: str) -> str:
    """The error without the file name or path it often starts with (the line shows the name)."""
    for prefix in (str(path), Path(path).name):
        if prefix and error.startswith(prefix + ":"):
            return error[len(prefix) + 1 :].strip()
    return error


def failures(failed: Sequence[tuple[str, str]]) -> Text:
    """One line per file that failed to index: its name, then the error."""
    lines = Text()
    for path, error in failed:
        lines.append("✗ ", style="#ef5350")
        lines.append(f"{Path(path).name}: ", style="bold")
        lines.append(f"{failure_text(path, error)}\n")
    return lines


PAGE_ROWS = 500  # documents drawn in the table at once; a filter box finds the others


def page_of(sources: Sequence[Any], text: str, limit: int = PAGE_ROWS) -> tuple[list[Any], int]:
    """(the first ``limit`` documents whose path contains ``text``, how many match): a
    10,000-document library draws 500 rows, not 10,000."""
    needle = text.strip().lower()
    matching = [s for s in sources if needle in s.source.lower()] if needle else list(sources)
    return matching[:limit], len(matching)


def row_cells(s: Any, demo: bool, stale: str | None, watched: bool) -> tuple[Text | str, ...]:
    """One documents-table row: name (+ demo / changed marks), length in the format's unit
    (pages, slides, sheet rows), chunks, when, folder
    (+ watched). Text, not str: a DataTable reads str cells as markup."""
    p = Path(s.source)
    name, folder = Text(shown(p.name)), Text(shown(str(p.parent)))
    if demo:
        name.append("  demo", style="italic #fdd835")
    if stale:
        name.append(f"  {stale}", style="italic #ffb74d")
    if watched:
        folder.append("  watched", style="italic #81c784")
    return (
        name,
        Text(count_text(s.source, s.pages), justify="right"),
        Text(str(s.chunks), justify="right"),
        when(s.indexed_at),
        folder,
    )


def page_note(shown: int, matching: int, total: int, needle: str) -> str:
    """The line under the summary when the table shows a page or a filtered part ("" else)."""
    if matching <= shown and not needle.strip():
        return ""
    return f"\nShowing {shown:,} of {matching:,} matching documents ({total:,} in all): type in the filter box to narrow."


def changed_on_disk(sources: Sequence[Any]) -> dict[str, str]:
    """Indexed files edited since they were indexed -> "changed": one stat each, no hashing
    (the ingest hashes and skips what did not really change). Missing files are left to
    "u", which names them."""
    out: dict[str, str] = {}
    for s in sources:
        try:
            if Path(s.source).stat().st_mtime > s.indexed_at:
                out[s.source] = "changed"
        except OSError:
            continue
    return out


def library_summary(
    sources: Sequence[Any],
    demo: int,
    ready: bool,
    previous: int,
    stale: dict[str, str] | None = None,
    watched: int = 0,
) -> Text:
    """The line above the documents table: counts, the keys, and what needs re-indexing."""
    docs, chunks = len(sources), sum(s.chunks for s in sources)
    summary = Text(style="bold")
    if not ready:
        summary.append("Opening the library…")
    elif docs:
        summary.append(f"{plural(docs, 'document')}, {chunks} chunks")
        if demo:
            summary.append(
                f"  ·  {plural(demo, 'demo document')} (ctrl+d removes "
                f"{'them' if demo != 1 else 'it'})",
                style="not bold #fdd835",
            )
        changed = sum(v == "changed" for v in (stale or {}).values())
        if changed:
            summary.append(
                f"  ·  {changed} changed on disk since indexed (u in the table "
                f"re-indexes {'them' if changed != 1 else 'it'})",
                style="not bold #ffb74d",
            )
        if watched:
            summary.append(
                f"  ·  watching {plural(watched, 'folder')}",
                style="not bold #81c784",
            )
        summary.append(
            "  ·  in the table: Enter overview, space mark, q ask about, r re-index, x remove, "
            "u update all",
            style="not bold dim",
        )
    elif not previous:
        summary.append(
            "No documents yet. Type or pick a file or folder below and press Enter, "
            "or press ctrl+g to index localcrag's own docs as a demo."
        )
    if ready and previous:
        if summary.plain:
            summary.append("\n")
        summary.append(
            f"{previous} document{'s were' if previous != 1 else ' was'} indexed with "
            "other settings (embedder or chunking): press ctrl+r to re-index "
            f"{'them' if previous != 1 else 'it'} with the current ones.",
            style="#fdd835",
        )
    return summary


def progress_text(p: IngestProgress) -> str:
    """One line for an ingest in progress: the file being read or embedded and, while
    embedding, how many chunks at what speed ("embedding 64/200 chunks · 45 chunks/s")."""
    from localcrag.ingest.progress import rate_eta

    name, overall = Path(p.path).name, rate_eta(p)
    if p.stage == "reading":
        return f"reading {name}{overall}"
    if p.stage == "ocr" and p.pages_total:
        return f"OCR page {p.pages_done}/{p.pages_total} · {name}{overall}"
    if p.stage == "embedding" and p.chunks_total:
        rate = f" · {p.rate:.0f} chunks/s" if p.rate else ""
        return f"embedding {p.chunks_done}/{p.chunks_total} chunks{rate} · {name}{overall}"
    return f"{p.stage} {name}{overall}"
