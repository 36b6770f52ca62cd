"""``localcrag doctor [--repair]``: check the index, and bring a damaged one back.

The check is one screen: a line per finding, ✓ or ✗. ``--repair`` goes back to the last
readable version, removes duplicates, rebuilds the full-text index and re-indexes lost
documents from their files, then names any document it could not recover. Documents with
pages read neither from their text layer nor by OCR are named after the checks (``!``): not
damage, so the index can still be healthy.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "doctor",
        help="check the index; --repair fixes a damaged or duplicated one",
        description="Verify the index (data files, row counts, vectors, full-text "
        "index, duplicates, listed documents) and name the documents with pages "
        "read neither from their text layer nor by OCR; --repair restores the "
        "last good version or rebuilds from the source files.",
    )
    s.add_argument("--repair", action="store_true", help="repair what the check finds")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from localcrag.cli.args import shown
    from localcrag.ingest import doctor
    from localcrag.settings import Settings

    lib = args.backends.library(Settings.load())
    lib.on_lock_wait = lambda msg: print(f"localcrag: {msg}", file=sys.stderr)
    up = doctor.check(lib.store)
    fixed = doctor.repair(lib) if args.repair and not up.ok else None
    after = doctor.check(lib.store) if fixed else None
    if args.json:
        out = {"index": str(lib.store.path), **up.to_json()}
        if fixed and after is not None:
            out["repair"] = {
                **fixed.to_json(),
                "ok_after": after.ok,
                "checks_after": after.to_json()["checks"],
            }
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"index: {lib.store.path}")
        for ok, what in up.lines:
            print(f"  {'✓' if ok else '✗'} {what}")
        if up.unread:
            n = len({source for source, _ in up.unread})
            print(f"{n} document(s) with pages read neither from their text layer nor by OCR:")
            for _, line in up.unread:
                print(f"  ! {shown(line)}")
        if fixed:
            _print_repair(fixed, after, shown)
        elif up.ok:
            print("the index is healthy")
        else:
            print("problems found: run `localcrag doctor --repair`")
    final = after if after is not None else up
    return 0 if final.ok and not (fixed and fixed.unrecoverable) else 1


def _print_repair(fixed, after, shown) -> None:  # noqa: ANN001 - doctor.Repair, doctor.Checkup
    print("repair:")
    if fixed.restored_version is not None:
        print(
            f"  restored version {fixed.restored_version} (the newest one whose files are all readable)"
        )
    for note in fixed.notes:
        print(f"  {note}")
    if fixed.removed_duplicates:
        print(f"  removed {fixed.removed_duplicates} duplicate rows")
    if fixed.fts_rebuilt:
        print("  rebuilt the full-text index")
    print(f"  re-indexed {len(fixed.reindexed)} document(s) from their files")
    for src in fixed.unrecoverable:
        print(f"  could not recover {shown(src)} (the file is gone or unreadable)")
    if fixed.unrecoverable:
        print(
            f"the index works, but {len(fixed.unrecoverable)} document(s) it held are lost: "
            "restore their files and run `localcrag ingest` on them"
        )
    elif after.ok:
        print("the index is healthy")
    if not after.ok:
        print("problems remain:")
    for ok, what in after.lines:
        if not ok:
            print(f"  ✗ {what}")
