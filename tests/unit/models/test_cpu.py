"""Adaptive llama.cpp threads: measure what other processes use of our cores."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from localcrag.models.cpu import CpuMeter, threads_for, usable_cores


def test_threads_for_leaves_the_busy_cores_alone() -> None:
    assert threads_for(2, None) == 2
    assert threads_for(2, 0.0) == 2 and threads_for(2, 0.3) == 2
    assert threads_for(2, 1.0) == 1 and threads_for(2, 5.0) == 1
    assert threads_for(8, 2.6) == 5


def test_own_work_is_not_counted_as_others() -> None:
    quiet = CpuMeter().others_busy(min_window=0.2)
    if quiet is not None and quiet > 0.3:
        pytest.skip(
            f"other processes keep {quiet:.1f} cores busy: the measurement needs a quiet machine"
        )
    meter = CpuMeter()
    x = 0
    for i in range(3_000_000):  # ~0.2 s of this process's own CPU
        x += i
    busy = meter.others_busy()
    if busy is None:
        pytest.skip("no /proc/stat here")
    assert busy < 0.6 * usable_cores()  # our loop is excluded (other tests may run beside)


def _spin(started, seconds: float) -> None:  # noqa: ANN001
    import time

    started.set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/stat")
def test_another_busy_process_is_seen() -> None:
    ctx = multiprocessing.get_context("spawn")
    started = ctx.Event()
    proc = ctx.Process(target=_spin, args=(started, 1.5))
    proc.start()
    try:
        assert started.wait(30)
        meter = CpuMeter()
        busy = meter.others_busy(min_window=0.8)
    finally:
        proc.join()
    assert busy is not None and busy > 0.5  # one process spinning ~ one core
