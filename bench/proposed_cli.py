"""`localcrag ask --json --offline` and `localcrag ingest --json` with the proposed ONNX int8
embedder, run as new processes for the cold-start and memory comparisons.

``python -m bench.proposed_cli ask QUESTION [--mode crag|rag]`` prints the JSON of
``localcrag ask --json``; ``python -m bench.proposed_cli ingest PATH...`` the one of
``localcrag ingest --json``. Each is the CLI command with one change: the Library gets
``OnnxEmbedder`` (so neither torch nor sentence-transformers is imported for embedding).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.proposed_cli")
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ask")
    a.add_argument("question")
    a.add_argument("--mode", choices=["crag", "rag"], default="crag")
    i = sub.add_parser("ingest")
    i.add_argument("paths", nargs="+", type=Path)
    args = p.parse_args(argv)

    from localcrag.library import Library
    from localcrag.settings import Settings

    from bench.fixtures import onnx_embedder

    settings = Settings.load()
    emb = onnx_embedder()
    if emb is None:
        print("no ONNX model exported under .bench/onnx", file=sys.stderr)
        return 2
    if args.cmd == "ingest":
        report = Library(settings, embedder=emb).ingest(args.paths)
        print(json.dumps(report.to_json()))
        return 1 if report.failed else 0

    from localcrag.cli_ask import _Record
    from localcrag.pipeline import Pipeline

    settings.offline = True
    pipe = Pipeline(settings, library=Library(settings, embedder=emb))
    record = _Record(args.question, args.mode)
    for event in pipe.run(args.question, mode=args.mode, confirm_web=lambda q: False):
        record.add(event)
    print(json.dumps(record.to_json(), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
