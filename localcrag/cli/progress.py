"""What `localcrag ingest` says while it works.

On a terminal: a bar on stderr (files done, the file at hand, and inside a large file the
chunks embedded so far). Without a terminal (a log, CI, a pipe): one line per file as it
finishes ("[3/14] indexed TSLA.csv · 2.1 files/s · ~40 s left"), and while a long file is
read or embedded a line at most every ``EVERY_S`` seconds, so a log never sits silent on
a big file. ``--quiet`` prints none of it; ``--json`` only the final object.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from localcrag.ingest.progress import rate_eta
from localcrag.textutil import shown

EVERY_S = 4.0  # a line repeats after this long without one: with the heartbeat's
TICK_S = 0.5  # granularity, a log is never silent 5 s while a file is being worked on
_DONE = {"indexed", "unchanged", "failed", "removed"}


def _inside(p) -> str:  # noqa: ANN001 - an IngestProgress
    """Progress inside the file at hand: OCR pages, or chunks embedded."""
    if p.stage == "ocr":
        return f"OCR page {p.pages_done}/{p.pages_total}"
    if p.stage == "embedding" and p.chunks_total:
        speed = f" ({p.rate:.0f}/s)" if p.rate else ""
        return f"embedding {p.chunks_done:,}/{p.chunks_total:,} chunks{speed}"
    return ""


class Lines:
    """Plain progress lines for a log.

    Events come when a file starts, a batch of chunks is embedded or an OCR page is read; on
    a busy machine a batch can take longer than ``EVERY_S`` (7-13 s for 128 chunks at load
    12 on 2 cores), so ``tick`` (called every ``TICK_S`` by a heartbeat thread that
    ``ingest_progress`` starts) repeats the latest state once ``EVERY_S`` passed without a
    line: "[0/14] embedding 128/2,000 chunks (14/s) · big.csv · still working". The first
    event is always printed ("[0/14] reading big.csv"), so a log shows the run has started
    as soon as the index is open and the files are listed (about 2 s, measured on the
    14-file folder of bench section 15), not after the first file's first batch."""

    def __init__(self, out: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.out, self.clock = out, clock
        self.last = clock()
        self.started = False  # the first event is printed whenever it comes
        self.latest: object | None = None  # the last event not yet finished
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def __call__(self, p) -> None:  # noqa: ANN001 - an IngestProgress
        name = shown(Path(p.path).name)  # a newline in a name never forges a line of the log
        with self.lock:
            self.latest = None if p.stage in _DONE else p
            if p.stage in _DONE:
                line = f"[{p.done}/{p.total}] {p.stage} {name}{rate_eta(p)}"
            elif not self.started or self.clock() - self.last >= EVERY_S:
                line = self._state(p)
            else:
                return
            self._print(line)

    def _state(self, p) -> str:  # noqa: ANN001 - an IngestProgress
        inside, name = _inside(p), shown(Path(p.path).name)
        what = f"{inside} · {name}" if inside else f"{p.stage} {name}"
        return f"[{p.done}/{p.total}] {what}{rate_eta(p)}"

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)
        self.last, self.started = self.clock(), True

    def tick(self) -> None:
        """Repeat the latest unfinished state when ``EVERY_S`` passed without a line."""
        with self.lock:
            if self.clock() - self.last < EVERY_S:
                return
            if self.latest is not None:
                self._print(self._state(self.latest) + " · still working")

    def beat(self) -> Callable[[], None]:
        """Start the heartbeat thread; returns the function that stops it."""

        def loop() -> None:
            while not self.stop.wait(TICK_S):
                self.tick()

        threading.Thread(target=loop, name="ingest-progress", daemon=True).start()
        return self.stop.set


def ingest_progress(as_json: bool, quiet: bool) -> tuple[Callable, Callable[[], None]]:
    """(callback, close): a bar on a terminal, lines in a log, nothing for --json/--quiet."""
    if as_json or quiet:
        return (lambda p: None), (lambda: None)
    if not sys.stderr.isatty():
        lines = Lines(sys.stderr)
        return lines, lines.beat()
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[name]}"),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("ingesting", total=None, name="")
    bar.start()

    def update(p) -> None:  # noqa: ANN001 - an IngestProgress
        name = shown(Path(p.path).name)[:40]
        inside = _inside(p)
        bar.update(
            task,
            total=p.total,
            completed=p.done,
            name=(f"{inside} · {name}" if inside else name) + rate_eta(p),
        )

    return update, bar.stop
