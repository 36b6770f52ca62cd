"""Where the model-server path spends its time: ``python -m bench.endpoint_probe [--pairs N]
[--stock] [--two-threads]``.

A diagnostic for bench section 11 (not a section of BENCHMARKS.md). It starts the same server
as the section (``localcrag.llm.serve``, 1 thread, ``--logits_all false``) with one hook: each
step of a streamed completion is timed inside the server, in whichever thread runs it (the
model's own work: the prompt decode for the first piece, one token after). For each answer
prompt, in-process and endpoint in turn (``--stock``: also a second server with
llama-cpp-python's own streaming; ``--two-threads``: also in-process with 2 threads, what
section 11 once measured by mistake), it prints time to first token and the median time
between streamed pieces, paired against in-process, and the HTTP path's own cost: what the
client saw minus what the model took in the server. It also prints the CPU seconds each
thread of the bench and of each server used per answer (``/proc/*/task/*/schedstat``, Linux),
which shows whether an idle side's threads spin while the other side works.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HOOK_ENV = "LCBENCH_NEXT_TIMES"  # the server appends one JSON line of next() seconds per request


def serve_with_hook() -> int:
    """The server process: ``localcrag.llm.serve`` with each step of a streamed completion
    timed, in whichever thread runs it (the stock hand-off or the run-ahead thread)."""
    import types

    import llama_cpp.server.app as app

    call = app.run_in_threadpool  # both streaming paths build the completion through it
    out = os.environ[HOOK_ENV]

    def steps(iterator: Iterator[Any]) -> Iterator[Any]:
        seconds: list[float] = []
        try:
            while True:
                t = time.perf_counter()
                try:
                    item = next(iterator)
                except StopIteration:
                    return
                finally:
                    seconds.append(time.perf_counter() - t)
                yield item
        finally:
            with open(out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(seconds) + "\n")

    async def timed_call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        result = await call(fn, *args, **kwargs)
        return steps(result) if isinstance(result, types.GeneratorType) else result

    app.run_in_threadpool = timed_call
    from localcrag.llm.serve import main

    return main()


def cpu_by_thread(pid: int) -> dict[int, float]:
    """CPU seconds so far of each live thread of ``pid`` (nanosecond schedstat), and under
    key -1 of the whole process, threads that have exited included (clock ticks)."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out[int(task.name)] = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            continue
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    out[-1] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def busy(before: dict[int, float], after: dict[int, float]) -> list[float]:
    """Seconds each thread used between two readings, largest first (over 5 ms only); a
    thread that started and ended in between (a request's own) counts as "exited"."""
    live = {t: after[t] - before.get(t, 0.0) for t in after if t != -1}
    gone = (after[-1] - before[-1]) - sum(live.values())
    out: list[Any] = sorted((round(u, 2) for u in live.values() if u > 0.005), reverse=True)
    return out + ([f"exited {gone:.2f}"] if gone > 0.015 else [])  # ticks are 10 ms


def server_pid(url: str) -> int:
    """The child process of this bench that serves ``url`` (found by its ``--port``)."""
    me, port = str(os.getpid()), url.rsplit(":", 1)[1].split("/")[0]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if (
                stat.read_text().rsplit(")", 1)[1].split()[1] == me
                and f"\0{port}\0" in (stat.parent / "cmdline").read_text()
            ):
                return int(stat.parent.name)
        except (OSError, IndexError):
            continue
    raise RuntimeError(f"the model server process for {url} was not found")


def served_prompt_tokens(url: str, messages: list[dict[str, str]]) -> int:
    """The server's own count of a chat prompt's tokens (``usage`` of a one-token answer)."""
    import urllib.request

    body = json.dumps({"messages": messages, "max_tokens": 1, "temperature": 0}).encode()
    req = urllib.request.Request(
        url + "/chat/completions", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=120) as resp:
        return int(json.loads(resp.read())["usage"]["prompt_tokens"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.endpoint_probe", description=__doc__.split("\n")[0]
    )
    p.add_argument("--pairs", type=int, default=8, help="answer prompts per side (default 8)")
    p.add_argument(
        "--stock",
        action="store_true",
        help="also a second server with llama-cpp-python's own streaming (--stock-streaming)",
    )
    p.add_argument("--two-threads", action="store_true", help="also in-process with 2 threads")
    args = p.parse_args(argv)

    from bench.endpoint import MAX_TOKENS, THREADS, llama_threads, prompts
    from localcrag.llm.endpoint import EndpointLLM
    from localcrag.llm.gguf import load_llm
    from localcrag.llm.serve import STOCK_FLAG, serving
    from localcrag.settings import Settings

    s = Settings.load()
    model = s.model_path(s.models.generator)
    tmp = Path(tempfile.mkdtemp(prefix="lcprobe-"))
    servers = {
        "endpoint": [],
        **({"endpoint, stock streaming": [STOCK_FLAG]} if args.stock else {}),
    }
    load0 = os.getloadavg()[0]
    with contextlib.ExitStack() as stack:
        remotes, hooks, pids = {}, {}, {}
        for i, (name, extra) in enumerate(servers.items()):
            hooks[name] = os.environ[HOOK_ENV] = str(tmp / f"steps{i}.jsonl")
            url = stack.enter_context(
                serving(
                    model,
                    threads=THREADS,
                    n_ctx=2048,
                    module="bench.endpoint_probe",
                    args=["--logits_all", "false", *extra],
                )
            )
            remotes[name] = EndpointLLM(url, read_timeout=120.0, extra_body={"repeat_penalty": 1.0})
            remotes[name].check()
            pids[name] = server_pid(url)
        local = load_llm(model, n_ctx=2048, threads=THREADS)

        def in_process(n: int) -> Callable[[list[dict[str, str]]], Iterator[str]]:
            def run(m: list[dict[str, str]]) -> Iterator[str]:
                local.set_threads(n)
                return local.stream(local.chat_prompt(m), MAX_TOKENS)

            return run

        def remote(name: str) -> Callable[[list[dict[str, str]]], Iterator[str]]:
            return lambda m: remotes[name].stream(remotes[name].chat_prompt(m), MAX_TOKENS)

        sides = {"in-process": in_process(THREADS), **{name: remote(name) for name in servers}}
        if args.two_threads:
            sides["in-process, 2 threads"] = in_process(2)
        for side in sides.values():
            for _ in side([{"role": "user", "content": "Say hello."}]):
                pass
        first = prompts(1)[0]
        print(
            f"prompt tokens of the first answer prompt: in-process {len(local.prompt_tokens(local.chat_prompt(first)))}"
            f", server {served_prompt_tokens(remotes['endpoint'].url, first)} (its usage count)"
        )
        for hook in hooks.values():
            Path(hook).write_text("")
        rows: dict[str, list[dict]] = {k: [] for k in sides}
        for k, chat in enumerate((prompts(args.pairs) * 2)[: args.pairs]):
            m = [{"role": "system", "content": f"Request {k}. {chat[0]['content']}"}, *chat[1:]]
            names = list(sides)
            for name in names[k % len(names) :] + names[: k % len(names)]:
                local.set_threads(THREADS)
                before = {
                    n: cpu_by_thread(pid) for n, pid in [("bench", os.getpid()), *pids.items()]
                }
                t0, stamps = time.perf_counter(), []
                for _ in sides[name](m):
                    stamps.append(time.perf_counter())
                rows[name].append(
                    {
                        "ttft": stamps[0] - t0,
                        "gap": statistics.median(y - x for x, y in zip(stamps, stamps[1:])),
                        "threads": llama_threads(local),
                        "cpu": {
                            n: busy(b, cpu_by_thread(os.getpid() if n == "bench" else pids[n]))
                            for n, b in before.items()
                        },
                    }
                )
        local.set_threads(THREADS)
    steps = {
        n: [json.loads(x) for x in Path(h).read_text().splitlines() if x.strip()]
        for n, h in hooks.items()
    }
    report(rows, steps, load0)
    return 0


def report(rows: dict[str, list[dict]], steps: dict[str, list[list[float]]], load0: float) -> None:
    """Medians per side, paired ratios against in-process, and each server's own time."""
    med = statistics.median
    base = rows["in-process"]
    print(
        f"1-min load average at the start: {load0:.1f}, at the end {os.getloadavg()[0]:.1f}; "
        f"{len(base)} answer prompts per side, interleaved, <= 64 tokens"
    )
    for name, v in rows.items():
        ttft = med(b["ttft"] / a["ttft"] for a, b in zip(base, v)) - 1
        rate = med(a["gap"] / b["gap"] for a, b in zip(base, v)) - 1
        threads = f"llama.cpp threads {v[-1]['threads']}" if name.startswith("in-process") else ""
        print(
            f"{name:26s} TTFT {med(r['ttft'] for r in v) * 1000:6.0f} ms ({ttft:+.1%})  between pieces "
            f"{med(r['gap'] for r in v) * 1000:5.2f} ms (pieces/s {rate:+.1%})  {threads}"
        )
        print(f"{'':26s} CPU s per answer, by thread: {v[len(v) // 2]['cpu']}")
    for name, runs in steps.items():
        runs = [n for n in runs if len(n) > 3]
        if not runs:
            continue
        first, step = med(n[0] for n in runs), med(med(n[2:-1]) for n in runs)
        v = rows[name]
        print(
            f"{name}: the model's own steps in the server: first piece {first * 1000:.0f} ms, then "
            f"{step * 1000:.2f} ms; the HTTP path adds {(med(r['ttft'] for r in v) - first) * 1000:.0f} ms "
            f"to the first piece and {(med(r['gap'] for r in v) - step) * 1000:.2f} ms per piece"
        )


if __name__ == "__main__":
    sys.exit(serve_with_hook() if HOOK_ENV in os.environ and "--model" in sys.argv else main())
