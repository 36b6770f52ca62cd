"""``python -m localcrag.llm.serve``: llama-cpp-python's OpenAI-compatible server, made safe
for AMX CPUs.

Takes exactly the arguments of ``python -m llama_cpp.server`` (``--model``, ``--host``,
``--port``, ``--n_ctx``, ``--api_key``, ...) and runs its ``main`` with llama.cpp's extra
buffer types off where ``localcrag.llm.gguf.without_amx`` says so: the cached wheel
otherwise dies with SIGSEGV on the first token on this kind of CPU. Needs the ``server``
extra (``pip install 'llama-cpp-python[server]'``).

A streamed answer is decoded by a thread of its own while the event loop sends it
(``localcrag.llm.serve_stream``); ``--stock-streaming`` keeps llama-cpp-python's own
token-by-token hand-off instead (for comparison).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

STOCK_FLAG = "--stock-streaming"


def main() -> int:
    import llama_cpp

    from localcrag.llm.gguf import without_amx

    try:
        from llama_cpp.server.__main__ import main as serve
    except ImportError as exc:  # fastapi, uvicorn, sse-starlette, ... missing
        print(
            f"llama-cpp-python's server extra is not installed ({exc}): "
            "pip install 'llama-cpp-python[server]'",
            file=sys.stderr,
        )
        return 1
    stock = STOCK_FLAG in sys.argv  # ours, not llama_cpp.server's: taken out before it parses
    sys.argv = [a for a in sys.argv if a != STOCK_FLAG]
    if not stock:
        import llama_cpp.server.app as app

        from localcrag.llm.serve_stream import install

        if not install(app):
            print(
                "this llama-cpp-python's server differs from the one localcrag knows: "
                "its own streaming is kept",
                file=sys.stderr,
            )
    with without_amx(llama_cpp.llama_cpp):  # the module Llama() reads its defaults from
        serve()  # type: ignore[no-untyped-call]  # llama_cpp.server's main is unannotated
    return 0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(
    model: Path,
    *,
    threads: int,
    n_ctx: int = 2048,
    api_key: str | None = None,
    args: Sequence[str] = (),
    ready_s: float = 120.0,
    log: Path | None = None,
    module: str = "localcrag.llm.serve",
) -> Iterator[str]:
    """Run this server on 127.0.0.1 (a free port) for the ``with`` block; yields its base URL
    (``.../v1``) once ``GET /v1/models`` answers, and kills it after. For the tests and the
    bench: readiness is polled (each poll waits on the process, so an early exit is seen at
    once), never guessed with a sleep. ``module``: another ``-m`` entry taking the same
    arguments (the bench's timing probe)."""
    from localcrag.llm.endpoint import EndpointDown, EndpointLLM

    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        module,
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        *(["--api_key", api_key] if api_key else []),
        *args,
    ]
    out = open(log, "wb") if log else subprocess.DEVNULL
    proc = subprocess.Popen(
        cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=dict(os.environ)
    )
    url = f"http://127.0.0.1:{port}/v1"
    probe = EndpointLLM(url, api_key=api_key, read_timeout=5.0)
    try:
        deadline = time.monotonic() + ready_s
        while True:
            try:
                proc.wait(timeout=0.05)
                raise RuntimeError(
                    f"the model server exited with {proc.returncode} before it was ready"
                )
            except subprocess.TimeoutExpired:
                pass
            try:
                probe.check()
                break
            except EndpointDown:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the model server on {url} was not ready in {ready_s:.0f} s"
                    ) from None
        yield url
    finally:
        proc.kill()
        proc.wait()
        if not isinstance(out, int):  # a log file, not subprocess.DEVNULL
            out.close()


if __name__ == "__main__":
    sys.exit(main())
