"""Streaming for ``localcrag.llm.serve``: the model decodes while the event loop sends.

llama-cpp-python's server drives a streamed completion from its event loop one ``next()``
at a time, each in a worker thread (starlette's ``iterate_in_threadpool``): the model starts
token n+1 only after the loop has been woken, encoded token n, queued it, checked the
connection and handed the next ``next()`` back, two thread hand-offs per token on the
model's critical path. ``bench.endpoint_probe`` measured what that adds per token (see
bench/endpoint.py). Here one thread of its own drains the completion into a queue, so
decoding does not wait for the HTTP side, and the request still holds the model until that
thread has stopped (after the end, an error, a disconnect or an interrupt), as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

_END = object()
NEEDS = (
    "get_event_publisher",
    "get_server_settings",
    "get_llama_proxy",
    "prepare_request_resources",
    "llama_outer_lock",
    "run_in_threadpool",
)


class RunAhead:
    """A sync iterator drained by a thread of its own into an asyncio queue."""

    def __init__(self, iterator: Iterator[Any]) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[Any, BaseException | None]] = asyncio.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._drain, args=(iterator,), name="llama-stream", daemon=True
        )
        self._thread.start()

    def _put(self, item: Any, exc: BaseException | None = None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: the server is going down
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (item, exc))

    def _drain(self, iterator: Iterator[Any]) -> None:
        try:
            for item in iterator:
                if self._stop.is_set():
                    break
                self._put(item)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
            self._put(_END, exc)
            return
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()  # the completion's own clean-up, in the thread that ran it
        self._put(_END)

    async def __aiter__(self) -> AsyncIterator[Any]:
        while True:
            item, exc = await self._queue.get()
            if exc is not None:
                raise exc
            if item is _END:
                return
            yield item

    async def stop(self) -> None:
        """Stop after the step under way and wait for it: the model is free after this."""
        self._stop.set()
        if self._thread.is_alive():
            import anyio

            await anyio.to_thread.run_sync(self._thread.join)


def install(app: ModuleType) -> bool:
    """Replace ``llama_cpp.server.app.get_event_publisher`` by the run-ahead one; False (and
    the server's own streaming kept) where this llama-cpp-python lacks what it uses."""
    if not all(hasattr(app, name) for name in NEEDS):
        return False

    async def get_event_publisher(
        request: Any,
        inner_send_chan: Any,
        body: Any,
        body_model: str | None,
        llama_call: Any,
        kwargs: dict[str, Any],
    ) -> None:
        import anyio

        server_settings = next(app.get_server_settings())
        interrupt = server_settings.interrupt_requests if server_settings else False
        cancelled = anyio.get_cancelled_exc_class()
        async with contextlib.asynccontextmanager(app.get_llama_proxy)() as llama_proxy:
            llama = app.prepare_request_resources(body, llama_proxy, body_model, kwargs)
            async with inner_send_chan:
                ahead: RunAhead | None = None
                try:
                    ahead = RunAhead(await app.run_in_threadpool(llama_call, llama, **kwargs))
                    async for chunk in ahead:
                        await inner_send_chan.send(dict(data=json.dumps(chunk)))
                        if await request.is_disconnected():
                            raise cancelled()
                        if interrupt and app.llama_outer_lock.locked():
                            await inner_send_chan.send(dict(data="[DONE]"))
                            raise cancelled()
                    await inner_send_chan.send(dict(data="[DONE]"))
                finally:
                    if ahead is not None:
                        with anyio.CancelScope(shield=True):
                            await ahead.stop()

    # patching the server module's own function: mypy knows no such attribute on ModuleType
    app.get_event_publisher = get_event_publisher  # type: ignore[attr-defined]
    return True
