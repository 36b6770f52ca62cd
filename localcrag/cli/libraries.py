"""``localcrag libraries``: named libraries, each with its own index, history and settings.

``localcrag --library NAME COMMAND`` (or ``LOCALCRAG_LIBRARY=NAME``) runs any command, the
app included, in that library; without it, the default library (today's index) is used.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from localcrag.cli.args import shown
from localcrag.errors import LocalcragError
from localcrag.ingest.libraries import listing


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "libraries",
        help="list, create or remove named libraries (each its own index, history and settings)",
    )
    s.add_argument("action", nargs="?", choices=["list", "create", "remove"], default="list")
    s.add_argument("name", nargs="?", help="the library to create or remove")
    s.add_argument("--yes", action="store_true", help="remove without asking")
    s.add_argument("--json", action="store_true", help="print one JSON object (list)")
    s.set_defaults(func=cmd_libraries)


def cmd_libraries(args: argparse.Namespace) -> int:
    from localcrag.settings.paths import (
        DEFAULT_LIBRARY,
        default_config_path,
        library_dir,
        library_name,
    )

    if args.action == "list":
        libs = listing()
        if args.json:
            from localcrag.cli.output import dumps

            print(dumps({"libraries": libs}))
            return 0
        for lib in libs:
            mark = "*" if lib["current"] else " "
            print(f"{mark} {lib['name']:<20} {lib['documents']:>6} documents  {shown(lib['dir'])}")
        print("(* in use; `localcrag --library NAME ...` or LOCALCRAG_LIBRARY=NAME uses another)")
        return 0
    if not args.name:
        raise LocalcragError(f"libraries {args.action} needs a NAME", "e.g. libraries create work")
    if args.name == DEFAULT_LIBRARY:
        raise LocalcragError(
            f"the {DEFAULT_LIBRARY!r} library cannot be {args.action}d",
            "`localcrag remove` or `ingest --prune` change what it holds",
        )
    folder = library_dir(args.name)
    if args.action == "create":
        if folder.exists():
            raise LocalcragError(f"a library named {args.name!r} exists", "use it: --library NAME")
        (folder / "index").mkdir(parents=True)
        main = default_config_path()
        if main.is_file():  # it starts with your settings; from now on they are its own
            shutil.copyfile(main, folder / "config.toml")
        print(f"created library {args.name!r} in {shown(str(folder))}")
        print(f"add documents: localcrag --library {args.name} ingest PATH")
        return 0
    if not folder.is_dir():
        raise LocalcragError(f"there is no library named {args.name!r}", "`localcrag libraries`")
    if library_name() == args.name:
        raise LocalcragError(
            f"{args.name!r} is the library in use", "run it without --library / LOCALCRAG_LIBRARY"
        )
    if not args.yes:
        if not sys.stdin.isatty():
            raise LocalcragError(
                f"removing {args.name!r} deletes its index, history and settings",
                "add --yes to confirm",
            )
        sys.stderr.write(
            f"Delete library {args.name!r} ({folder}): index, history, settings? [y/N] "
        )
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            print("kept")
            return 1
    shutil.rmtree(folder)
    print(f"removed library {args.name!r} (your files are untouched)")
    return 0
