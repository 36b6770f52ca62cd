"""Two versions of ``localcrag.llm.pull`` fetching the bundled SmolLM2 GGUF from the tests'
fake hub on 127.0.0.1, interleaved: wall time of ``plan_pull`` + ``download`` (the sha256
check included) and the progress reports (issue 24's before/after for the pull).

    git show 9af3a4d:localcrag/llm/pull.py > /tmp/pull_before.py
    PYTHONPATH=. python scripts/pull_compare.py /tmp/pull_before.py [rounds]
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    from localcrag.llm import pull as new
    from tests.fakehub import SMOL, SPEC, FakeHub, start

    spec = importlib.util.spec_from_file_location("pull_before", sys.argv[1])
    if spec is None or spec.loader is None:
        raise SystemExit(f"{sys.argv[1]}: not a Python file")
    old = importlib.util.module_from_spec(spec)
    sys.modules["pull_before"] = old  # its dataclasses look their module up
    spec.loader.exec_module(old)
    hub = FakeHub({SPEC: SMOL.resolve()})
    server, _ = start(hub)
    os.environ["HF_ENDPOINT"] = hub.url
    times: dict[str, list[float]] = {"before": [], "new": []}
    for k in range(int(sys.argv[2]) if len(sys.argv) > 2 else 4):
        for name in ("before", "new") if k % 2 == 0 else ("new", "before"):
            mod = old if name == "before" else new
            with tempfile.TemporaryDirectory() as d:
                calls: list[object] = []
                t0 = time.perf_counter()
                plan = mod.plan_pull(SPEC, Path(d), offline=False, probe=lambda h: True)
                how = mod.download(plan, calls.append)
                times[name].append(time.perf_counter() - t0)
                assert (Path(d) / SMOL.name).read_bytes() == SMOL.read_bytes(), name
                print(f"{name}: {times[name][-1]:.2f} s, {len(calls)} progress reports, {how}")
    server.shutdown()
    medians = ", ".join(f"{k} {statistics.median(v):.2f} s" for k, v in times.items())
    print(f"{SMOL.name} ({SMOL.stat().st_size / 1e6:.0f} MB), median: {medians}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
