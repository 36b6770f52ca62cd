"""How busy our cores are with *other* work, so llama.cpp does not fight it for them.

Measured on 2 cores with SmolLM2-135M (`threads = 0` means "auto"): quiet, 2 threads
decode 103 tok/s against 66 with 1; with one other busy process, 2 threads collapse to
25 tok/s (llama.cpp's threads wait on each other while one of them is preempted) while 1
thread keeps 66 and a shorter time to first token (1.8 s against 2.6 s). So before each
answer the pipeline measures what other processes used of our cores since the question
arrived and gives llama.cpp only the cores they leave free.
"""

from __future__ import annotations

import functools
import math
import os
import resource
import time

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def usable_cores() -> int:
    """Cores this process may use (respects affinity/cgroup pinning where the OS tells)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


@functools.cache
def cpu_flags() -> frozenset[str] | None:
    """The CPU's feature flags as Linux's /proc/cpuinfo lists them (read once a process);
    None where they cannot be read (not Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return None


def _busy_seconds() -> float | None:
    """Non-idle CPU seconds of the cores we may run on, since boot (Linux only)."""
    try:
        mine = {f"cpu{i}" for i in os.sched_getaffinity(0)}
        with open("/proc/stat", encoding="ascii") as f:
            lines = [line.split() for line in f if line.startswith("cpu") and line[3:4].isdigit()]
    except (OSError, AttributeError):
        return None
    total = 0
    for fields in lines:
        if fields[0] in mine:
            ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
            total += sum(ticks) - ticks[3] - ticks[4]
    return total / _TICK


def _own_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process
    return r.ru_utime + r.ru_stime


class CpuMeter:
    """Start it when work begins; ``others_busy()`` = cores used by other processes since."""

    def __init__(self) -> None:
        self._busy = _busy_seconds()
        self._own = _own_seconds()
        self._t = time.monotonic()

    def others_busy(self, min_window: float = 0.1) -> float | None:
        """Average number of our cores other processes kept busy; None where unknown."""
        if self._busy is None:
            return None
        wait = min_window - (time.monotonic() - self._t)
        if wait > 0:
            time.sleep(wait)  # too short a window says nothing
        busy = _busy_seconds()
        if busy is None:
            return None
        elapsed = time.monotonic() - self._t
        return max(0.0, ((busy - self._busy) - (_own_seconds() - self._own)) / elapsed)


def threads_for(cores: int, others_busy: float | None) -> int:
    """The cores the others leave free (at least one): 2 cores, others 1.0 -> 1; 0.3 -> 2."""
    if others_busy is None:
        return cores
    return max(1, min(cores, cores - math.floor(others_busy + 0.5)))
