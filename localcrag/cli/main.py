"""The ``localcrag`` command: a thin shell over the headless core.

Every heavy import happens inside the sub-command that needs it, so ``--help`` is
instant. Errors are one line on stderr; tracebacks only with LOCALCRAG_DEBUG=1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from localcrag import __version__
from localcrag.cli.args import Backends, add_scope_option, positive_int, shown, user_settings
from localcrag.cli.output import command_session, dumps

if TYPE_CHECKING:
    from localcrag.ingest.library import Library


def _print_json(obj: object) -> None:
    print(dumps(obj))


# --- ingest / remove / sources / search ---------------------------------------------------


def cmd_ingest(args: argparse.Namespace) -> int:

    lib = args.backends.library(user_settings())
    return _ingest(lib, args.paths, args.prune, args.json, args.quiet, args.no_wait)


def _ingest(
    lib: Library,
    paths: Sequence[Path],
    prune: bool,
    json: bool,
    quiet: bool = False,
    no_wait: bool = False,
    force: bool | set[str] = False,
) -> int:
    """Index ``paths`` into ``lib`` with progress on stderr and a summary (``ingest`` and
    ``reindex``)."""
    from localcrag.cli.progress import ingest_progress

    callback, close = ingest_progress(json, quiet)
    lib.wait_for_lock = not no_wait
    lib.on_lock_wait = lambda msg: print(f"localcrag: {msg}", file=sys.stderr)
    try:
        report = lib.ingest(paths, prune=prune, on_progress=callback, force=force)
    finally:
        close()
    if json:
        _print_json(report.to_json())
    else:
        for _path, warning in report.warnings:
            print(f"warning: {shown(str(warning))}", file=sys.stderr)
        for _path, err in report.failed:
            print(f"failed: {shown(str(err))}", file=sys.stderr)
        print(
            f"indexed {len(report.indexed)}, unchanged {len(report.unchanged)}, "
            f"removed {len(report.removed)}, failed {len(report.failed)}; "
            f"{report.chunks} chunks in the index"
        )
        if report.skipped:
            from localcrag.ingest.formats import supported_text

            print(
                f"skipped {len(report.skipped)} file(s) of unsupported types in folders: "
                f"{first_ten(report.skipped)} (supported: {supported_text()})"
            )
        if report.excluded:
            print(kept_out(report.excluded))
    return 1 if report.failed else 0


def cmd_reindex(args: argparse.Namespace) -> int:
    """Re-embed every document known to the index into the current embedder's table."""

    lib = args.backends.library(user_settings())
    paths = sorted({s.source for s in lib.sources()} | set(lib.previous_sources()))
    if not paths:
        print("No documents indexed yet. Add some with: localcrag ingest PATH")
        return 0
    from localcrag.ingest.doctor import invalid_vector_sources
    from localcrag.ingest.files import source_path

    damaged = set(invalid_vector_sources(lib.store))  # rows of unchanged files: re-embedded
    return _ingest(lib, [source_path(p) for p in paths], False, args.json, force=damaged)


def cmd_remove(args: argparse.Namespace) -> int:

    lib = args.backends.library(user_settings())
    status = 0
    for p in args.paths:
        removed = lib.remove_under(p, keep_out=True)
        for source, n in removed:
            print(f"removed {shown(source)} ({n} chunks)")
        if not removed:
            print(f"localcrag: {p} is not in the index (see `localcrag sources`)", file=sys.stderr)
            status = 1
    return status


def cmd_sources(args: argparse.Namespace) -> int:
    from localcrag.ingest.formats import count_text, count_unit

    library = args.backends.library(user_settings())
    srcs = library.sources()
    needle, total = (args.filter or "").lower(), len(srcs)
    srcs = [s for s in srcs if needle in s.source.lower()]
    matching, srcs = len(srcs), srcs[: args.limit or None]
    if args.json:
        about = library.documents([s.source for s in srcs])
        _print_json(
            {
                "sources": [
                    {
                        "source": s.source,
                        "document": about.get(s.source) or None,
                        "pages": s.pages,
                        "unit": count_unit(s.source) or None,
                        "chunks": s.chunks,
                        "indexed_at": s.indexed_at,
                    }
                    for s in srcs
                ],
                "matching": matching,
                "total": total,
                "excluded": sorted(library.exclusions.sources),
            }
        )
        return 0
    if not total:
        if earlier := library.previous_sources():  # indexed under other chunking or embedder
            print(
                f"No documents in the current index: {len(earlier):,} were indexed with a "
                "different embedder or chunking settings (run `localcrag reindex` to re-embed "
                "them with the current ones)"
            )
            return 0
        print("No documents indexed yet. Add some with: localcrag ingest PATH")
        return 0
    import datetime as dt

    for s in srcs:  # written as they go: a 10,000-line listing starts at once in a pager
        when = dt.datetime.fromtimestamp(s.indexed_at).strftime("%Y-%m-%d %H:%M")
        sys.stdout.write(
            f"{count_text(s.source, s.pages):>12} {s.chunks:>6} chunks  {when}  {shown(s.source)}\n"
        )
    shown_note = f" (showing {len(srcs):,} of {matching:,} matching)" if len(srcs) < total else ""
    print(f"{total:,} documents, {sum(s.chunks for s in srcs):,} chunks listed{shown_note}")
    if out := sorted(library.exclusions.sources):
        print(kept_out(out))
    return 0


def kept_out(out: list[str]) -> str:
    """The line naming files the user removed, which folder ingests and watched folders leave
    out."""
    return (
        f"kept out {len(out)} file(s) you removed (`localcrag ingest FILE` adds one back): "
        + first_ten(out)
    )


def first_ten(paths: list[str]) -> str:
    """ "a.txt, b.txt and 3 more": a list of files as one line names them."""
    more = f" and {len(paths) - 10} more" if len(paths) > 10 else ""
    return ", ".join(shown(p) for p in paths[:10]) + more


def cmd_search(args: argparse.Namespace) -> int:
    from localcrag.crag.retrieve import Retriever
    from localcrag.errors import BadQuestion
    from localcrag.record import scope_json
    from localcrag.textutil import source_label

    if not args.query.strip():
        raise BadQuestion("the search query is empty", "give some words to search for")
    settings = user_settings()
    retriever = Retriever(settings, args.backends.library(settings))
    mode = args.mode or settings.retrieval.retrieval_mode
    scope = retriever.library.scope(args.within) if args.within else None
    hits = retriever.search(args.query, k=args.k, mode=mode, scope=scope)
    if retriever.fallback and not args.json:
        print(f"warning: {retriever.fallback}", file=sys.stderr)
    if args.json:
        _print_json(
            {
                "query": args.query,
                "mode": mode,
                "scope": scope_json(scope),
                "fallback": retriever.fallback,
                "results": [
                    {
                        "chunk_id": h.chunk.chunk_id,
                        "source": h.chunk.source,
                        "page": h.chunk.page,
                        "locator": h.chunk.locator,
                        "score": round(h.score, 6),
                        "text": h.chunk.text,
                    }
                    for h in hits
                ],
                "score_kind": score_kind(mode, args.query)[0],
            }
        )
        return 0
    name, scale = score_kind(mode, args.query)
    if scope is not None:
        print(f"Within: {shown(scope.label)}, {scope.passages} passages")
    print(f"Score: {scale}")
    for h in hits:
        snippet = " ".join(h.chunk.text.split())[:160]
        where = source_label(h.chunk.source, h.chunk.page, locator=h.chunk.locator)
        print(f"{h.rank + 1}. {shown(where)}  ({name} {h.score:.3f})\n   {snippet}")
    return 0


def score_kind(mode: str, query: str) -> tuple[str, str]:
    """Which score a search mode returns (short name, one line on its scale), so a bare
    number is never printed: RRF, cosine and BM25 live on different scales."""
    from localcrag.ingest.store import RRF_K

    if mode == "vector" or not query.strip():
        return (
            "cosine",
            "cosine similarity of question and chunk embeddings (-1 to 1, higher is closer)",
        )
    if mode == "text":
        return (
            "BM25",
            "BM25 full-text relevance (0 and up, unbounded; higher matches more rare words)",
        )
    return "RRF", (
        f"reciprocal-rank fusion of the vector and text ranks, sum of 1/({RRF_K} + rank); "
        f"at most {2 / (RRF_K + 1):.3f} (first in both); only the order is meaningful"
    )


def cmd_config(args: argparse.Namespace) -> int:
    """Every setting as a line you can paste into the TOML file under its group's table,
    with its description, group by group in the model's order (as on the settings screen)."""
    from localcrag.settings import Settings, config_path, data_dir, grouped
    from localcrag.settings.sources import env_value
    from localcrag.settings.values import toml_value

    s = Settings.load()
    print(f"# config file: {config_path()}\n# data dir: {data_dir()}")
    print(
        "# every setting can also come from the environment as LOCALCRAG_<GROUP>__<NAME> (e.g. "
        "LOCALCRAG_RETRIEVAL__TOP_K=8) or LOCALCRAG_<NAME> (LOCALCRAG_TOP_K=8); either beats "
        "the file, and the grouped name wins if both are set"
    )
    for title, group in grouped():
        print(f"\n# --- {title} ---\n[{group[0].group}]")
        values = getattr(s, group[0].group).model_dump(mode="json")
        for f in group:
            value = values[f.name]
            env = env_value(f.group, f.name)
            source = f"  [from {env[0]}]" if env else ""
            line = f"# {f.name} = (not set)" if value is None else f"{f.name} = {toml_value(value)}"
            print(f"{line}  # {f.info.description}{source}")
    return 0


# --- wiring -------------------------------------------------------------------------------


def build_parser(backends: Backends | None = None) -> argparse.ArgumentParser:
    """The ``localcrag`` command line; its commands build ``backends`` (the real library
    and pipeline by default)."""
    p = argparse.ArgumentParser(
        prog="localcrag",
        description="Ask questions about your own documents, fully offline (Corrective RAG). "
        "With no command, opens the terminal app.",
    )
    p.add_argument("--version", action="version", version=f"localcrag {__version__}")
    p.add_argument(
        "--library",
        metavar="NAME",
        help="use this named library (its own index, history and settings; `localcrag "
        "libraries` lists them); default: LOCALCRAG_LIBRARY, else the default library",
    )
    p.set_defaults(backends=backends or Backends())
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    from localcrag.ingest.formats import supported_text

    s = sub.add_parser("ingest", help=f"index files or folders ({supported_text()})")
    s.add_argument("paths", nargs="+", type=Path)
    s.add_argument(
        "--prune", action="store_true", help="drop indexed files that vanished from these folders"
    )
    s.add_argument(
        "--no-wait", action="store_true", help="fail at once when another ingest is running"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress (without a terminal, a line per file is printed otherwise)",
    )
    s.set_defaults(func=cmd_ingest)

    s = sub.add_parser(
        "reindex", help="re-embed every indexed document (after changing the embedder or chunking)"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_reindex)

    s = sub.add_parser("remove", help="remove documents from the index")
    s.add_argument("paths", nargs="+", type=Path)
    s.set_defaults(func=cmd_remove)

    s = sub.add_parser("sources", help="list indexed documents")
    s.add_argument("--json", action="store_true")
    s.add_argument("--filter", metavar="TEXT", help="only documents whose path contains TEXT")
    s.add_argument("--limit", type=positive_int, metavar="N", help="list at most N documents")
    s.set_defaults(func=cmd_sources)

    s = sub.add_parser("search", help="retrieve chunks for a query (no generation)")
    s.add_argument("query")
    s.add_argument(
        "-k", type=positive_int, default=None, help="chunks to list (default: the top_k setting)"
    )
    s.add_argument(
        "--mode",
        choices=["hybrid", "vector", "text"],
        default=None,
        help="default: the retrieval_mode setting",
    )
    add_scope_option(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_search)

    s = sub.add_parser("config", help="show settings, their descriptions and file locations")
    s.set_defaults(func=cmd_config)

    for register in _extra_commands():
        register(sub)
    return p


def _extra_commands() -> list[Callable]:
    """Commands defined in their own modules (ask, eval) register themselves here."""
    from localcrag.cli.ask import register as ask
    from localcrag.cli.doctor import register as doctor
    from localcrag.cli.eval import register as evaluate
    from localcrag.cli.libraries import register as libraries
    from localcrag.cli.models import register as models
    from localcrag.cli.watch import register as watch

    return [ask, evaluate, doctor, models, watch, libraries]


def main(argv: list[str] | None = None, backends: Backends | None = None) -> int:
    parser = build_parser(backends)
    args = parser.parse_args(argv)
    if args.library:  # every path below reads it: index, history, settings (settings/paths)
        import os

        os.environ["LOCALCRAG_LIBRARY"] = args.library
    if args.command is None:
        return _run_tui()  # (the app makes its files private itself)
    with (
        command_session()
    ):  # private files; no escape sequence from outside text reaches the terminal
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("localcrag: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `localcrag ... | head`: the reader left, which is fine
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except Exception as exc:  # every error reaches the user as one line
        from localcrag.errors import debug, describe_error

        if debug():
            raise
        print(f"localcrag: {describe_error(exc)[0]}", file=sys.stderr)
        return 1


def _run_tui() -> int:
    try:
        from localcrag.tui.app import run
    except ImportError:
        build_parser().print_help()
        return 0
    return int(run() or 0)
