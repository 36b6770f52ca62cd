"""Two model-server clients against the same local server, interleaved: time to first token
and tokens/s over the same answer prompts (issue 24's before/after for ``llm/endpoint.py``).

    git show 9af3a4d:localcrag/llm/endpoint.py > /tmp/endpoint_before.py
    PYTHONPATH=. python scripts/endpoint_clients.py /tmp/endpoint_before.py [--prompts 10]

The server is ``localcrag.llm.serve`` with the bundled generator, one thread, as bench
section 11 runs it; the prompts are section 11's (a val.json question, three PDF passages),
each request with a number of its own first so the server's KV cache cannot reuse a
prefix (not even the other client's same prompt). Each prompt goes to both clients, the
order alternating; the figures are medians with the paired
median ratio (new / before). Then each client's own CPU time per streamed piece, from a
scripted server on 127.0.0.1 (what the client costs, whatever the load).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
from pathlib import Path


def load_module(path: Path) -> object:
    spec = importlib.util.spec_from_file_location("endpoint_before", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    from bench.endpoint import MAX_TOKENS, THREADS, prompts, timed_stream
    from localcrag.llm import endpoint
    from localcrag.llm.serve import serving
    from localcrag.settings import Settings

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, help="the other endpoint.py (a copy of an older one)")
    ap.add_argument("--prompts", type=int, default=10)
    args = ap.parse_args()
    before = load_module(args.before)
    s = Settings.load()
    model = s.model_path(s.generator)
    chats = prompts(args.prompts)
    load = os.getloadavg()[0]
    with serving(model, threads=THREADS, n_ctx=2048, args=["--logits_all", "false"]) as url:
        sides = {
            "before": before.EndpointLLM(url, read_timeout=120.0),  # type: ignore[attr-defined]
            "new": endpoint.EndpointLLM(url, read_timeout=120.0),
        }
        for llm in sides.values():  # warm: the model list, the first decode
            llm.extra_body = {"repeat_penalty": 1.0}
            timed_stream(llm.stream(llm.chat_prompt([{"role": "user", "content": "Hi."}]), 8))
        runs: dict[str, list[dict]] = {name: [] for name in sides}
        for k, chat in enumerate(chats):
            order = list(sides) if k % 2 == 0 else list(sides)[::-1]
            for i, name in enumerate(order):
                number = f"Request {2 * k + i}. {chat[0]['content']}"  # no KV reuse between sides
                m = [{"role": "system", "content": number}, *chat[1:]]
                llm = sides[name]
                runs[name].append(timed_stream(llm.stream(llm.chat_prompt(m), MAX_TOKENS)))
    print(
        f"{model.name}, {len(chats)} prompts, {THREADS} thread, <= {MAX_TOKENS} tokens, "
        f"1-min load {load:.1f} at the start"
    )
    for name, rows in runs.items():
        ttft = statistics.median(r["ttft"] for r in rows) * 1000
        rate = statistics.median(r["tok_s"] for r in rows if r["tok_s"] == r["tok_s"])
        print(f"{name:>7}: time to first token {ttft:.0f} ms, {rate:.1f} tokens/s (medians)")
    pairs = list(zip(runs["before"], runs["new"]))
    ttft_ratio = statistics.median(n["ttft"] / b["ttft"] for b, n in pairs)
    rate_ratio = statistics.median(n["tok_s"] / b["tok_s"] for b, n in pairs)
    print(
        f"new / before, paired medians: time to first token x{ttft_ratio:.3f}, "
        f"tokens/s x{rate_ratio:.3f}"
    )
    print(
        "tokens/s new / before, each pair:",
        " ".join(f"{n['tok_s'] / b['tok_s']:.2f}" for b, n in pairs),
    )
    client_cpu(before.EndpointLLM, endpoint.EndpointLLM)  # type: ignore[attr-defined]
    return 0


def client_cpu(before: type, new: type, pieces: int = 3000, reps: int = 5) -> None:
    """The clients' own cost, free of the model and of the machine's load: CPU time of the
    reading thread per streamed piece, from a server that sends ``pieces`` events at once."""
    import json
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    event = {"choices": [{"delta": {"content": "word "}, "finish_reason": None}]}
    body = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for _ in range(pieces))
    body += b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    cpu: dict[str, list[float]] = {"before": [], "new": []}
    for k in range(reps):
        for name in ("before", "new") if k % 2 == 0 else ("new", "before"):
            llm = (before if name == "before" else new)(url, model="m")
            t0 = time.thread_time()
            n = sum(1 for _ in llm.stream(llm.chat_prompt([{"role": "user", "content": "x"}]), 9))
            cpu[name].append((time.thread_time() - t0) / n * 1e6)
    server.shutdown()
    print(
        f"client CPU per streamed piece ({pieces} pieces x {reps}, median): "
        + ", ".join(f"{k} {statistics.median(v):.0f} us" for k, v in cpu.items())
    )


if __name__ == "__main__":
    raise SystemExit(main())
