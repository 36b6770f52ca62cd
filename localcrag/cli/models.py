"""``localcrag models`` (what is in models/, read from the files) and ``models pull NAME``."""

from __future__ import annotations

import argparse
import sys

from localcrag.cli.args import user_settings

PULL_HELP = (
    "download a chat GGUF from the Hugging Face hub into models/ (resumable, sha256-checked). "
    "NAME is a catalogue short name (listed by `localcrag models`) or OWNER/REPO/FILE.gguf. "
    "What leaves this machine: the repository and file name, in a HEAD and a GET to "
    "$HF_ENDPOINT (default https://huggingface.co), with huggingface_hub's user agent and your "
    "HF token if one is configured; nothing about your documents. This one call is allowed "
    "even though HF_HUB_OFFLINE=1 (set by `make` and by localcrag so that nothing is ever "
    "fetched implicitly); it is refused when offline (--offline, the offline setting, or no DNS)."
)


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "models",
        help="list models in models/ (size, parameters, context, chat "
        "template, in use) and the catalogue; `models pull NAME` downloads one",
    )
    inner = s.add_subparsers(dest="models_command", metavar="pull")
    p = inner.add_parser(
        "pull", help="download a model from the Hugging Face hub", description=PULL_HELP
    )
    p.add_argument("name", metavar="NAME", help="catalogue short name or OWNER/REPO/FILE.gguf")
    p.add_argument(
        "--offline", action="store_true", help="refuse (for scripts that must stay offline)"
    )
    p.set_defaults(func=cmd_pull)
    s.set_defaults(func=cmd_models)


def cmd_models(args: argparse.Namespace) -> int:
    from localcrag.llm.inventory import catalogue_rows, human_size, model_rows

    settings = user_settings()
    rows = model_rows(settings)
    if not rows:
        print(f"No models in {settings.models.models_dir} (run `make models`)")
    else:
        print(f"{'':2}{'kind':<22}{'size':>9}  {'params':>6}  {'context':>7}  {'chat':<4}  name")
    for r in rows:
        extra = f"  ({r.error})" if r.error else ""
        if r.kind == "sentence-transformers":
            from localcrag.models.embed_onnx import onnx_path_for

            onnx = onnx_path_for(r.path)
            extra = (
                f"  (+ int8 ONNX copy, {onnx.stat().st_size / 1e6:.1f} MB)"
                if onnx.is_file()
                else ""
            )
        used = f"  <- {', '.join(r.roles)}" if r.roles else ""
        mark = "* " if "generator" in r.roles else "  "
        print(
            f"{mark}{r.kind:<22}{human_size(r.size_bytes):>9}  {r.params:>6}  {r.context:>7}  "
            f"{r.chat:<4}  {r.name}{extra}{used}"
        )
    if any("generator" in r.roles for r in rows):
        from localcrag.crag.answer.capability import model_choices

        print(f"\nWith generator = {settings.models.generator}:")
        for choice in model_choices(settings):
            print(f"  {choice.line()}")
    print(
        "\nCatalogue (`localcrag models pull NAME`; sizes and RAM approximate, "
        "read from the hub when pulling):"
    )
    for entry, present in catalogue_rows(settings.models.models_dir):
        state = "pulled" if present else ""
        print(
            f"  {entry.name:<14}{entry.params:>5}  {entry.size_gb:>5.2f} GB file  "
            f"{entry.ram_gb:>4.1f} GB RAM  {state:<7}{entry.spec}"
        )
    return 0 if rows else 1


def cmd_pull(args: argparse.Namespace) -> int:
    from localcrag.crag.web import is_online
    from localcrag.llm.inventory import human_size
    from localcrag.llm.pull import check_disk, download, hub_endpoint, plan_pull, ram_warning

    settings = user_settings(args.offline)
    plan = plan_pull(
        args.name, settings.models.models_dir, offline=settings.web.offline, probe=is_online
    )
    size = human_size(plan.size) if plan.size else "size unknown"
    print(
        f"pulling {plan.repo}/{plan.filename} ({size}) from {hub_endpoint()} into {plan.dest.parent}"
    )
    if plan.dest.is_file() and plan.size == plan.dest.stat().st_size:
        print(f"{plan.dest.name} is already in {plan.dest.parent}; nothing to do")
        return 0
    check_disk(plan)
    if warning := ram_warning(plan):
        print(warning, file=sys.stderr)
    on_progress, close = _progress_bar(plan.dest.name)
    try:
        how = download(plan, on_progress)
    finally:
        close()
    short = plan.entry.name if plan.entry else plan.dest.name
    print(f"saved {plan.dest} ({size}, {how})")
    print(
        f'use it: localcrag ask "..." --generator {short}  (or generator = "{plan.dest.name}" '
        "in the settings file, or the app's settings screen)"
    )
    return 0


def _progress_bar(name: str):
    """A rich bar on a terminal (stderr): bytes, speed, time left; nothing otherwise."""
    if not sys.stderr.isatty():
        return (lambda p: None), (lambda: None)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    from localcrag.cli.output import raw_stderr

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(file=raw_stderr()),
        transient=True,
    )
    task = bar.add_task(name[:32], total=None)
    bar.start()

    def update(p) -> None:
        bar.update(
            task,
            total=p.total,
            completed=p.done,
            description=("verifying " if p.stage == "verify" else "") + name[:32],
        )

    return update, bar.stop
