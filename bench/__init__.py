"""Benchmarks for localcrag (``python -m bench`` from the repo root, or ``make bench``).

Every section measures localcrag against a baseline *in the same run*, interleaving the
two sides repetition by repetition, so a busy machine slows both alike and the ratios
stay meaningful. Results are rows of :class:`Row`; ``bench.report`` turns them into
BENCHMARKS.md.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CACHE = ROOT / ".bench"
PDFS = sorted((DATA / "ai-information").glob("*.pdf"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@dataclass
class Stat:
    """Samples of one measurement: median, min, max, p95."""

    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def lo(self) -> float:
        return min(self.samples) if self.samples else float("nan")

    @property
    def hi(self) -> float:
        return max(self.samples) if self.samples else float("nan")

    def pct(self, p: float) -> float:
        """Nearest-rank percentile (p in 0..100)."""
        if not self.samples:
            return float("nan")
        s = sorted(self.samples)
        return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


@dataclass
class Row:
    """One line of a section table: a label and named cells (numbers or text)."""

    label: str
    cells: dict[str, object] = field(default_factory=dict)


@dataclass
class Section:
    """A benchmark section: its tables, the targets it checks, and free-form notes."""

    title: str
    tables: list[tuple[str, list[Row]]] = field(default_factory=list)
    targets: list[tuple[str, str, bool | None]] = field(
        default_factory=list
    )  # (target, measured, pass)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    data: dict = field(default_factory=dict)  # raw figures for BENCHMARKS.json (unformatted)
    name: str = ""  # the section's module (bench/<name>.py), set by ``python -m bench``
    code: dict = field(default_factory=dict)  # what it measured: paths and sha256 (bench/code.py)
    run: dict = field(default_factory=dict)  # when: date, commit, quick (kept when merged)


@contextmanager
def temp_home(prefix: str = "lcbench-") -> Iterator[Path]:
    """A fresh LOCALCRAG_HOME for the duration of the block (the previous one restored)."""
    old = os.environ.get("LOCALCRAG_HOME")
    with tempfile.TemporaryDirectory(prefix=prefix) as d:
        os.environ["LOCALCRAG_HOME"] = d
        try:
            yield Path(d)
        finally:
            if old is None:
                os.environ.pop("LOCALCRAG_HOME", None)
            else:
                os.environ["LOCALCRAG_HOME"] = old


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """(seconds, result) of one call."""
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def interleave(
    fns: dict[str, Callable[[], object]],
    reps: int,
    on_result: Callable[[str, object], None] | None = None,
) -> dict[str, Stat]:
    """Run each function once per repetition, rotating the order; seconds per function."""
    names = list(fns)
    out = {n: Stat([]) for n in names}
    for r in range(reps):
        order = names[r % len(names) :] + names[: r % len(names)]
        for n in order:
            sec, res = timed(fns[n])
            out[n].samples.append(sec)
            if on_result:
                on_result(n, res)
    return out


def fmt(x: object, digits: int = 2) -> str:
    """Numbers with a sensible precision; anything else as text."""
    if isinstance(x, float):
        if x != x:
            return "n/a"
        if abs(x) >= 100:
            return f"{x:,.0f}"
        return f"{x:.{digits}f}"
    return str(x)


def spread(st: Stat, scale: float = 1.0, digits: int = 2) -> str:
    """'median (min–max)' of a Stat, scaled (e.g. 1000 for ms)."""
    return f"{fmt(st.median * scale, digits)} ({fmt(st.lo * scale, digits)}–{fmt(st.hi * scale, digits)})"


def rates(st: Stat, amount: float) -> Stat:
    """Per-second rates from durations (amount / seconds), sample by sample."""
    return Stat([amount / s for s in st.samples if s > 0])


def ratio(a: Sequence[float] | Stat, b: Sequence[float] | Stat) -> float:
    """a / b from the same run: the median of per-repetition ratios when the samples pair
    up (interleaved runs), else median(a) / median(b)."""
    xa = list(a.samples if isinstance(a, Stat) else a)
    xb = list(b.samples if isinstance(b, Stat) else b)
    if len(xa) == len(xb) and xa and all(xb):
        return statistics.median(x / y for x, y in zip(xa, xb))
    mb = statistics.median(xb) if xb else 0.0
    return statistics.median(xa) / mb if mb else float("nan")


class TimedEmbedder:
    """Wraps an embedder; adds up the seconds spent in ``embed`` and the texts embedded."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str], *args: object, **kwargs: object) -> object:
        t = time.perf_counter()
        try:
            return self.inner.embed(texts, *args, **kwargs)  # the inner embedder's own batch size
        finally:
            self.seconds += time.perf_counter() - t
            self.texts += len(texts)


@dataclass
class Proc:
    """A finished child process: wall seconds, peak RSS (MB), exit code, output."""

    wall: float
    rss_mb: float
    rc: int
    stdout: str
    stderr: str
    cpu_s: float = float("nan")  # user + system CPU seconds of the child (wall / cpu: contention)


# A small python parent for the measured command: a child forked from the (large) bench
# process would inherit its peak RSS (Linux keeps the pre-exec high-water mark in ru_maxrss).
_WRAPPER = (
    "import os, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.Popen(sys.argv[1:])\n"
    "_, status, ru = os.wait4(p.pid, 0)\n"
    "sys.stderr.write(f'\\nBENCH_CHILD {time.perf_counter() - t} {ru.ru_maxrss} {ru.ru_utime + ru.ru_stime}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def run_process(
    cmd: Sequence[str], env: dict[str, str] | None = None, timeout: float = 900
) -> Proc:
    """Run ``cmd`` in a new process; its own wall time and peak RSS (``os.wait4`` in a
    small wrapper process, so nothing of the bench's memory is counted)."""
    import subprocess
    import sys

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.run(
            [sys.executable, "-c", _WRAPPER, *cmd],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
            timeout=timeout,
        )
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        wall, rss_kb, cpu = float("nan"), float("nan"), float("nan")
        for line in stderr.splitlines()[::-1]:
            if line.startswith("BENCH_CHILD "):
                _, w, r, c = line.split()
                wall, rss_kb, cpu = float(w), float(r), float(c)
                break
        return Proc(
            wall,
            rss_kb / 1024,
            p.returncode,
            out.read().decode(errors="replace"),
            stderr[-2000:],
            cpu,
        )


def log(msg: str) -> None:
    """Progress on stderr (BENCHMARKS.md gets the results)."""
    import sys

    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
