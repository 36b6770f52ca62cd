"""``localcrag watch PATH...``: keep the index in sync with folders until Ctrl+C.

One line per change (indexed, removed, failed, warning), each with the time, so a terminal
left open shows what the index did; everything else is in ``localcrag.ingest.watch``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from localcrag.cli.args import shown


def _print_report(report: Any, first: bool = False) -> None:
    at = time.strftime("%H:%M:%S")
    for src in report.indexed:
        print(f"{at} indexed {shown(src)}")
    for src in report.removed:
        print(f"{at} removed {shown(src)}")
    for _, warning in report.warnings:
        print(f"{at} warning: {shown(str(warning))}", file=sys.stderr)
    for _, err in report.failed:
        print(f"{at} failed: {shown(str(err))}", file=sys.stderr)
    if first:
        print(
            f"{at} up to date: indexed {len(report.indexed)}, unchanged {len(report.unchanged)}, "
            f"removed {len(report.removed)}, failed {len(report.failed)}; {report.chunks} chunks "
            "in the index. Watching for changes (Ctrl+C stops)."
        )
    elif report.indexed or report.removed or report.failed:
        print(f"{at} {report.chunks} chunks in the index")
    sys.stdout.flush()


def cmd_watch(args: argparse.Namespace) -> int:
    from localcrag.ingest.watch import watch
    from localcrag.settings import Settings

    missing = [p for p in args.paths if not Path(p).expanduser().exists()]
    if missing:
        print(
            f"localcrag: cannot watch {shown(str(missing[0]))}: not found (check the path)",
            file=sys.stderr,
        )
        return 2
    lib = args.backends.library(Settings.load())
    lib.on_lock_wait = lambda msg: print(f"localcrag: {msg}", file=sys.stderr)
    first = [True]

    def report(r: Any) -> None:
        _print_report(r, first[0])
        first[0] = False

    watch(lib, args.paths, report)
    print("stopped watching", file=sys.stderr)
    return 0


def register(sub: Any) -> None:
    s = sub.add_parser(
        "watch",
        help="keep the index in sync with folders (create, change, move, delete) until Ctrl+C",
    )
    s.add_argument("paths", nargs="+", type=Path)
    s.set_defaults(func=cmd_watch)
