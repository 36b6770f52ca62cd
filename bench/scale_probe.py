"""One scale measurement in a fresh process (``python -m bench.scale_probe FOLDER N QUERIES.npz``):
open the table, time the first search, then hybrid / vector / full-text latency, recall
against exact float32 top-10, search-side RSS, and how soon an appended document is found.
Prints one JSON line. A separate process so start-up and RSS are the product's own."""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

T_START = time.perf_counter()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    import numpy as np

    from localcrag.ingest.store import LanceStore
    from localcrag.types import Chunk

    folder, n, qfile = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    z = np.load(qfile, allow_pickle=False)
    texts, qv, exact = [str(t) for t in z["texts"]], z["vectors"], z["exact"]
    out: dict = {"import_s": time.perf_counter() - T_START}
    rss0 = rss_mb()
    t = time.perf_counter()
    store = LanceStore(folder, "chunks_bench", qv.shape[1])
    store.search(texts[0], qv[0], 5, "hybrid")
    out["first_search_s"] = time.perf_counter() - t
    out["start_to_search_s"] = time.perf_counter() - T_START
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = ru.ru_utime + ru.ru_stime  # CPU to that point: wall / CPU shows contention
    lat: dict[str, list[float]] = {"hybrid": [], "vector": [], "text": []}
    cpu: dict[str, list[float]] = {m: [] for m in lat}  # process CPU per query (both threads)
    found = 0
    for i, (q, v) in enumerate(zip(texts, qv)):
        for mode in list(lat)[i % 3 :] + list(lat)[: i % 3]:
            t, c = time.perf_counter(), time.process_time()
            hits = store.search(q, v, 10, mode)
            lat[mode].append(time.perf_counter() - t)
            cpu[mode].append(time.process_time() - c)
            if mode == "vector":
                found += len({h.chunk.chunk_id for h in hits} & {f"c{j:07d}" for j in exact[i]})
    out["latency_s"] = lat
    out["cpu_s_per_query"] = cpu
    out["recall_at_10"] = found / (10 * len(texts))
    out["rss_search_mb"] = rss_mb() - rss0
    out["rss_mb"] = rss_mb()
    snap = store._ram.snapshot(store.table)
    out["segments"] = len(snap.segments)
    out["bytes_in_ram_per_row"] = sum(
        s.bits.nbytes + s.rowids.nbytes + s.alive.nbytes for s in snap.segments
    ) / max(snap.count, 1)
    # an appended document, committed by another handle (as by an ingest in another process)
    writer = LanceStore(folder, "chunks_bench", qv.shape[1])
    rng = np.random.default_rng(n)
    vec = (qv[1] + 0.01 * rng.standard_normal(qv.shape[1])).astype(np.float32)
    chunk = Chunk(
        "probe-0", "/bench/probe.txt", "a freshly appended probe document", 1, 1, 0, 33, None, 6
    )
    writer.replace_file("/bench/probe.txt", "probe", 1, [chunk], vec[None, :])
    t = time.perf_counter()
    store.table.checkout_latest()  # what Library.refresh does when the change stamp moved
    hits = store.search("freshly appended probe", vec, 5, "vector")
    out["append_visible_s"] = time.perf_counter() - t
    out["append_found"] = bool(hits) and hits[0].chunk.chunk_id == "probe-0"
    writer.remove("/bench/probe.txt")
    t = time.perf_counter()
    store.table.checkout_latest()
    hits = store.search("freshly appended probe", vec, 5, "vector")
    out["delete_visible_s"] = time.perf_counter() - t
    out["delete_gone"] = all(h.chunk.chunk_id != "probe-0" for h in hits)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
