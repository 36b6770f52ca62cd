"""Concurrent merge_insert of the same new keys on S3 (moto, 127.0.0.1), with and without an
unenforced primary key: the measurement behind docs/shared-index.md.

    PYTHONPATH=. .venv/bin/python scripts/s3_race.py [--writers 3] [--keys 40] [--trials 3]

Each trial: a fresh table, then N processes that start their merge_insert at the same moment
(the one localcrag's ingest runs: update matched, insert new, delete the document's others).
Prints the rows the table ends with, the distinct keys, and each writer's num_attempts.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import pyarrow as pa

OPTS = {"allow_http": "true", "region": "us-east-1"}
SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("src", pa.string()),
        pa.field("w", pa.int64()),
    ]
)


def _writer(uri: str, start: float, tag: int, keys: int, q: mp.Queue) -> None:
    import lancedb

    t = lancedb.connect(uri, storage_options=OPTS).open_table("t")
    rows = pa.table(
        {"id": [f"k{i}" for i in range(keys)], "src": ["doc"] * keys, "w": [tag] * keys},
        schema=SCHEMA,
    )
    while time.time() < start:
        time.sleep(0.001)
    r = (
        t.merge_insert("id")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .when_not_matched_by_source_delete("src = 'doc'")
        .execute(rows)
    )
    q.put(getattr(r, "num_attempts", None))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--writers", type=int, default=3)
    p.add_argument("--keys", type=int, default=40)
    p.add_argument("--trials", type=int, default=3)
    args = p.parse_args()
    import lancedb

    from bench.shared import moto_s3

    ctx = mp.get_context("spawn")
    with moto_s3("race"):
        for key in (False, True):
            for trial in range(args.trials):
                uri = f"s3://race/{int(key)}-{trial}"
                t = lancedb.connect(uri, storage_options=OPTS).create_table("t", schema=SCHEMA)
                if key:
                    t.set_unenforced_primary_key("id")
                q, start = ctx.Queue(), time.time() + 10.0  # every process imported and connected
                procs = [
                    ctx.Process(target=_writer, args=(uri, start, w, args.keys, q))
                    for w in range(args.writers)
                ]
                [pr.start() for pr in procs]
                [pr.join(120) for pr in procs]
                attempts = sorted(q.get() for _ in procs)
                t.checkout_latest()
                ids = t.to_arrow()["id"].to_pylist()
                print(
                    f"primary key {'yes' if key else 'no '}  trial {trial}: {len(ids)} rows, "
                    f"{len(set(ids))} distinct keys, attempts per writer {attempts}"
                )


if __name__ == "__main__":
    main()
