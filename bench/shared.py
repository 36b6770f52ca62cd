"""Section 8: a shared index on object storage search latency from an
S3 index against the same index in a local folder.

Both indexes hold the same 10,000 chunks (quick: 2,000). The vectors are random unit
vectors, not embeddings: embedding 10k chunks would take minutes and search latency does
not depend on what the vectors mean (the RAM copy makes the vector half one matrix product
either way). The texts are synthetic sentences, so the full-text half has real work. The S3
side is moto's S3 server on 127.0.0.1: it measures the object-store code path (more,
smaller requests through LanceDB's object store) without network latency, which a real
bucket adds per request. Queries alternate local / S3 (refreshed at most every 5 s, the
default) / S3 refreshed on every read (``index_refresh_seconds = 0``).
"""

from __future__ import annotations

import functools
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bench import Row, Section, fmt, interleave, log

BUCKET = "localcrag-bench"
_WORDS = (
    "robot arm cell calibrated sensor torque gripper conveyor weld paint inspect battery "
    "motor camera laser vision planner safety fence operator shift schedule"
).split()


@contextmanager
def moto_s3(bucket: str, requests: list | None = None) -> Iterator[str]:
    """moto's S3 server on a free loopback port with fake credentials in the environment (and
    AWS_ENDPOINT_URL at it, so nothing reaches AWS); yields the endpoint URL. ``requests``, when
    given, collects (method, path, If-None-Match header) of every request the server answers."""
    import boto3
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    app = DomainDispatcherApplication(create_backend_app)

    def recorded(environ: dict, start_response: object) -> object:
        if requests is not None:
            requests.append(
                (environ["REQUEST_METHOD"], environ["PATH_INFO"], environ.get("HTTP_IF_NONE_MATCH"))
            )
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, recorded, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_port}"
    fake = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    saved = {k: os.environ.get(k) for k in fake}
    os.environ.update(fake)
    try:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(
            Bucket=bucket
        )
        yield endpoint
    finally:
        server.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _fill(store: object, n: int, dim: int, seed: int = 7) -> None:
    """n one-chunk documents, committed 1,000 at a time (as an ingest would), then compacted."""
    from localcrag.ingest.maintain import compact
    from localcrag.types import Chunk

    rng = np.random.default_rng(seed)
    for at in range(0, n, 1000):
        docs = []
        for i in range(at, min(n, at + 1000)):
            words = rng.choice(_WORDS, 12)
            text = f"Note {i}: " + " ".join(words) + f" on line {i % 97}."
            vec = rng.standard_normal((1, dim)).astype(np.float32)
            vec /= np.linalg.norm(vec)
            chunk = Chunk(
                chunk_id=f"d{i}-0",
                source=f"/notes/n{i:05d}.txt",
                text=text,
                page_start=1,
                page_end=1,
                char_start=0,
                char_end=len(text),
                n_tokens=20,
            )
            docs.append((chunk.source, f"h{i}", 1, [chunk], vec))
        store.replace_files(docs)
    compact(store, 60.0)


def run(quick: bool) -> Section:
    from localcrag.ingest.location import IndexLocation
    from localcrag.ingest.store import LanceStore

    sec = Section("8. Shared index on S3 (moto, loopback)")
    try:
        import moto.server  # noqa: F401
    except ImportError:
        sec.notes.append("skipped: moto[server] is not installed (pip install -e '.[dev]')")
        return sec
    n, reps, dim, k = (2000, 30, 384, 5) if quick else (10_000, 100, 384, 5)
    rng = np.random.default_rng(11)
    queries = [
        (" ".join(rng.choice(_WORDS, 3)), rng.standard_normal(dim).astype(np.float32))
        for _ in range(reps)
    ]
    seen: list = []
    with moto_s3(BUCKET, seen) as endpoint, tempfile.TemporaryDirectory(prefix="lcbench-s3-") as d:
        opts = {"endpoint": endpoint, "allow_http": "true", "region": "us-east-1"}
        stores = {
            "local folder": LanceStore(Path(d), "t", dim),
            "S3, refresh ≤ 5 s (default)": LanceStore(
                IndexLocation(f"s3://{BUCKET}/ix", opts, 5.0), "t", dim
            ),
        }
        log(f"shared: {n} chunks into a local folder and into S3 (moto)")
        for store in stores.values():
            _fill(store, n, dim)
        stores["S3, refresh on every read"] = LanceStore(
            IndexLocation(f"s3://{BUCKET}/ix", opts, 0.0), "t", dim
        )
        rows, data = [], {}
        for mode in ("hybrid", "vector"):
            for store in stores.values():  # first search: opens the table, loads the RAM copy
                store.search(*queries[0], k, mode=mode)
            pos = dict.fromkeys(stores, 0)

            def search(name: str, mode: str = mode, pos: dict = pos) -> object:
                q, v = queries[pos[name] % reps]
                pos[name] += 1
                return stores[name].search(q, v, k, mode=mode)

            stats = interleave({name: functools.partial(search, name) for name in stores}, reps)
            for name in stores:  # object-store requests per search, the S3 stores one at a time
                seen.clear()
                for _ in range(10):
                    search(name)
                data[f"{mode}/{name}/requests"] = len(seen) / 10
            for name, st in stats.items():
                rows.append(
                    Row(
                        f"{mode}: {name}",
                        {
                            "p50 (ms)": fmt(st.median * 1000, 1),
                            "p95 (ms)": fmt(st.pct(95) * 1000, 1),
                            "vs local (p50)": f"{st.median / stats['local folder'].median:.2f}×",
                            "S3 requests / search": fmt(data[f"{mode}/{name}/requests"], 1),
                        },
                    )
                )
                data[f"{mode}/{name}"] = {"p50_ms": st.median * 1000, "p95_ms": st.pct(95) * 1000}
    sec.tables.append(
        (
            f"search p50/p95 at {n:,} chunks, k={k}, {reps} queries per row (interleaved); "
            "random unit vectors, synthetic texts",
            rows,
        )
    )
    sec.notes.append(
        "Vectors are random-normalised, not embedded (search cost does not depend on them). "
        "moto on loopback has no network latency: on a real bucket each object-store request "
        "adds its round trip."
    )
    sec.data.update({"chunks": n, "queries": reps, "k": k, "latency": data})
    return sec
