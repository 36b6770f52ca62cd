"""The model server's run-ahead streaming (localcrag.llm.serve_stream) without a model: order,
errors, running ahead of a slow consumer, and a stop that waits for the step under way."""

from __future__ import annotations

import asyncio
import threading
import time
import types
from collections.abc import Iterator

import pytest

from localcrag.llm.serve_stream import RunAhead, install


def _collect(iterator: Iterator[object]) -> list[object]:
    async def go() -> list[object]:
        return [item async for item in RunAhead(iterator)]

    return asyncio.run(go())


def test_items_in_order_then_the_end() -> None:
    assert _collect(iter(range(5))) == [0, 1, 2, 3, 4]
    assert _collect(iter([])) == []


def test_an_error_in_the_completion_reaches_the_consumer() -> None:
    def broken() -> Iterator[int]:
        yield 1
        raise ValueError("prompt too long")

    with pytest.raises(ValueError, match="prompt too long"):
        _collect(broken())


def test_the_model_does_not_wait_for_the_http_side() -> None:
    """All steps are produced while the consumer is still busy with the first piece (the
    stock server would have produced one)."""
    produced: list[int] = []

    def steps() -> Iterator[int]:
        for i in range(5):
            produced.append(i)
            yield i

    async def go() -> list[int]:
        seen = []
        async for _item in RunAhead(steps()):
            if not seen:
                await asyncio.sleep(0.3)  # the event loop busy sending the first piece
                seen.append(len(produced))
        return seen

    assert asyncio.run(go()) == [5]


def test_stop_waits_for_the_step_under_way_and_closes_the_completion() -> None:
    log: list[str] = []
    release = threading.Event()

    def steps() -> Iterator[int]:
        try:
            yield 0
            release.wait(5)  # a long decode in progress
            time.sleep(0.1)
            log.append("step 1 done")
            yield 1
            log.append("step 2 started")  # never: stopped before
            yield 2
        finally:
            log.append("closed")

    async def go() -> None:
        ahead = RunAhead(steps())
        async for _ in ahead:
            release.set()
            await ahead.stop()  # returns only once the model is free
            log.append("stopped")
            break

    asyncio.run(go())
    assert log == ["step 1 done", "closed", "stopped"]


def test_install_needs_the_server_it_knows() -> None:
    assert install(types.ModuleType("not_the_server")) is False
    app = pytest.importorskip(
        "llama_cpp.server.app", reason="llama-cpp-python[server] is not installed"
    )
    stock = app.get_event_publisher
    try:
        assert install(app) is True and app.get_event_publisher is not stock
    finally:
        app.get_event_publisher = stock
