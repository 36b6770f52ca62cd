"""Stage timings of a run: each stage's start/finish events and its milliseconds."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import TypeVar

from localcrag import events as ev

T = TypeVar("T")


def ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


class Stage:
    """Times a stage and hands out its started/finished events."""

    def __init__(self, name: str, timings: dict[str, float], detail: str = "") -> None:
        self.name, self.timings = name, timings
        self.started = ev.StageStarted(name, detail)
        self._finished: ev.StageFinished | None = None

    def __enter__(self) -> Stage:
        self.t = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        ms = round((time.perf_counter() - self.t) * 1000, 1)
        self.timings[self.name] = ms
        self._finished = ev.StageFinished(self.name, ms)

    @property
    def finished(self) -> ev.StageFinished:
        """The finished event, once the ``with`` block has ended."""
        if self._finished is None:
            raise RuntimeError(f"stage {self.name!r} is still running")
        return self._finished


def timed(
    name: str, timings: dict[str, float], work: Callable[[], T]
) -> Generator[ev.Event, None, T]:
    """Run ``work`` as stage ``name`` between its started and finished events; ``yield from``
    gives its value."""
    with Stage(name, timings) as st:
        yield st.started
        value = work()
    yield st.finished
    return value
