"""Section 9, bounded reads: what the question path and the model-server client read.

Each case runs the real CLI in a new process (``run_process``: its own ``ru_maxrss``) on a
fresh LOCALCRAG_HOME:

* a one-page PDF holding a 100 x 100 ruled grid (the table finder ran > 300 s before
  ``limits.max_table_cells``): ``ingest``;
* a codebook whose definition line holds 60,000 spaces, then "What does CRIM mean?" (one
  question took 77 s while the definition pattern was quadratic): ``ask --offline``;
* a model server on 127.0.0.1 whose model list never ends, whose stream never ends, and one
  that drips a byte a second (read whole, or waited on forever, before the caps and
  ``llm_endpoint_deadline``): ``ask`` falls back to the local model with one line.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench import run_process, temp_home

CEILING = 512 * 1024 * 1024  # bytes the bad server sends at most (the client stops far sooner)
CEILING_S = 120.0  # seconds a slow behaviour lasts at most
DRIP_DEADLINE_S = 20  # llm_endpoint_deadline for the drip case (default 300 s: a real server)
MODELS = json.dumps({"object": "list", "data": [{"id": "served-model"}]}).encode()
PIECE = b'data: {"choices": [{"delta": {"content": "word "}, "finish_reason": null}]}\n\n'


@contextmanager
def bad_server(chat: str, models: str = "ok") -> Iterator[tuple[str, list[int]]]:
    """A model server on 127.0.0.1 misbehaving as told: (its /v1 URL, [bytes sent])."""
    sent = [0]

    class Handler(BaseHTTPRequestHandler):  # HTTP/1.0: a body runs until the connection closes
        def log_message(self, *args: object) -> None:
            pass

        def _write(self, data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()
            sent[0] += len(data)

        def _behave(self, what: str) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            if size:
                self.rfile.read(size)
            end = time.monotonic() + CEILING_S
            try:
                self.send_response(200)
                kind = "text/event-stream" if what in ("stream", "drip") else "application/json"
                self.send_header("Content-Type", kind)
                self.end_headers()
                if what == "ok":
                    self._write(MODELS)
                elif what == "endless":
                    self._write(b'{"object": "list", "data": [')
                    while sent[0] < CEILING and time.monotonic() < end:
                        self._write(b'{"id": "m"}, ' * 5000)
                elif what == "stream":
                    while sent[0] < CEILING and time.monotonic() < end:
                        self._write(PIECE * 500)
                elif what == "drip":
                    for byte in iter(
                        lambda: PIECE[sent[0] % len(PIECE) : sent[0] % len(PIECE) + 1], b""
                    ):
                        if time.monotonic() >= end:
                            break
                        self._write(byte)
                        time.sleep(1.0)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self._behave(models)

        def do_POST(self) -> None:  # noqa: N802
            self._behave(chat)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", sent
    finally:
        server.shutdown()
        server.server_close()


def _codebook(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "codebook.md"
    path.write_text(
        "# Variables of the housing data\n\n"
        + "- CRIM"
        + " " * 60_000
        + "per capita crime rate by town\n"
        + "- ZN     proportion of residential land zoned for large lots\n",
        encoding="utf-8",
    )
    return path


def _cli(home: Path, *args: str, env: dict | None = None):  # noqa: ANN202 - bench.Proc
    return run_process(
        [sys.executable, "-m", "localcrag", *args],
        env={**os.environ, "LOCALCRAG_HOME": str(home), **(env or {})},
    )


def cases(root: Path) -> dict[str, tuple[float, float, str]]:
    """label -> (seconds, peak RSS MB, outcome in a few words)."""
    from tests.test_bounded import ruled_grid_pdf

    out: dict[str, tuple[float, float, str]] = {}
    grid = ruled_grid_pdf(root / "grid.pdf", 100)
    with temp_home("lcbench-reads-") as home:
        p = _cli(home, "ingest", "--json", str(grid))
        report = json.loads(p.stdout.strip().splitlines()[-1])
        warned = "; ".join(w["warning"] for w in report["warnings"])
        out["one-page PDF, 100 x 100 ruled grid: ingest"] = (
            p.wall,
            p.rss_mb,
            f"indexed {len(report['indexed'])}"
            + ("; read as text (cell limit)" if "max_table_cells" in warned else ""),
        )
    with temp_home("lcbench-reads-") as home:
        _cli(home, "ingest", str(_codebook(root / "codebook")))
        p = _cli(home, "ask", "--json", "--offline", "What does CRIM mean?")
        ok = p.rc == 0 and "crime" in p.stdout.lower()
        out["definition line of 60,000 spaces: ask 'What does CRIM mean?'"] = (
            p.wall,
            p.rss_mb,
            "answered from the codebook" if ok else f"exit {p.rc}",
        )
        for label, chat, models, deadline in (
            ("model server: a model list that never ends", "stream", "endless", None),
            ("model server: a stream that never ends", "stream", "ok", None),
            (
                f"model server: a stream dripping a byte a second (deadline {DRIP_DEADLINE_S} s)",
                "drip",
                "ok",
                DRIP_DEADLINE_S,
            ),
        ):
            env = {"LOCALCRAG_LLM_ENDPOINT": ""}
            with bad_server(chat, models) as (url, sent):
                env["LOCALCRAG_LLM_ENDPOINT"] = url
                if deadline:
                    env["LOCALCRAG_LLM_ENDPOINT_DEADLINE"] = str(deadline)
                p = _cli(home, "ask", "--json", "What does CRIM mean?", env=env)
            try:  # `ask --json` says why it fell back: generator.fallback
                said = json.loads(p.stdout.strip().splitlines()[-1])["generator"]
                line = str(said.get("fallback") or "")
            except (ValueError, IndexError, KeyError, TypeError, AttributeError):
                line = p.stderr.strip()[-100:]
            out[label] = (
                p.wall,
                p.rss_mb,
                f"exit {p.rc}{' (answer restarted)' if p.rc == 3 else ''}; "
                f"server sent {sent[0] / 1e6:.1f} MB; {line[:100]}",
            )
    return out
