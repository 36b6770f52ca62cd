"""``localcrag eval``: the command-line face of the evaluation (the only module that prints)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from localcrag.cli.output import dumps
from localcrag.registry import WRITTEN_STYLES

# Tests replace this with a factory of fake pipelines (Settings -> Pipeline-like object).
pipeline_factory: Callable[[Any], Any] | None = None


def register(sub: argparse._SubParsersAction) -> None:
    from localcrag.cli.args import GENERATOR_HELP, positive_int
    from localcrag.registry import GRADERS

    s = sub.add_parser(
        "eval",
        help="evaluate CRAG against standard RAG, retrieval and the retrieval evaluator",
        description="Evaluate on a dataset, fully offline: val.json (ai-information), a SQuAD 2.0 "
        "JSON, the anthropic-docs folder, a folder with questions.jsonl and docs/, or the "
        "qa-pairs folder (labelled question-passage pairs: the retrieval evaluator only). "
        "The corpus is indexed into its own index under LOCALCRAG_HOME/eval/.",
    )
    s.add_argument("dataset", type=Path, metavar="DATASET")
    s.add_argument(
        "--mode",
        choices=["crag", "rag", "both"],
        default="both",
        help="pipeline(s) to answer with (default both, on the same questions)",
    )
    s.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="at most N questions (a seeded, balanced slice); qa-pairs: N pairs per source "
        "family, half of each label (default 200)",
    )
    s.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed for --limit and for sampling evaluator negatives (default 0)",
    )
    s.add_argument(
        "--only",
        choices=["retrieval", "evaluator", "decisions", "answers"],
        default=None,
        help="run one part only (decisions: retrieve, grade and decide, no answer written)",
    )
    s.add_argument(
        "-k",
        type=positive_int,
        default=None,
        metavar="K",
        help="chunks retrieved per question and the cutoff of recall@k/MRR@k "
        "(default: the top_k setting)",
    )
    s.add_argument(
        "--grader",
        choices=list(GRADERS),
        default=None,
        help="retrieval evaluator to measure (default: the grader setting)",
    )
    s.add_argument(
        "--grader-model",
        type=Path,
        default=None,
        metavar="FILE",
        help="grader file to measure: a reader .onnx (scripts/train_reader.py, calibrated by "
        "scripts/fit_reader.py into the .json beside it) or a fusion params .json "
        "(scripts/fit_withheld.py); thresholds fitted into the file replace the settings'; "
        "without --grader the file says which grader it is",
    )
    s.add_argument(
        "--calibrate",
        choices=("on", "off"),
        default=None,
        help="thresholds calibrated on the dataset's own corpus (on) or the settings' (off); "
        "default: the calibrate setting",
    )
    s.add_argument(
        "--article",
        default=None,
        metavar="TITLE",
        help="SQuAD: only the questions of this article, e.g. Normans (held-out reporting)",
    )
    s.add_argument(
        "--slice",
        default=None,
        metavar="NAME",
        help='a set of questions.jsonl: only the questions whose "slice" is NAME (e.g. held: '
        "those never looked at while fixing)",
    )
    s.add_argument(
        "--rerank",
        type=positive_int,
        default=0,
        metavar="N",
        help="also measure retrieval with the first N chunks re-ordered by the grader",
    )
    s.add_argument(
        "--withhold",
        choices=["gold"],
        default=None,
        help="with --only decisions: decide every answerable question a second time with its "
        "gold units (the answer-bearing chunks, paragraph or chapter) withheld from the search, "
        "so what is graded is on topic but lacks the answer: CRAG should refuse",
    )
    s.add_argument(
        "--sources",
        type=_names,
        default=(),
        metavar="A,B",
        help="qa-pairs: only these source families (e.g. subjqa,trecqa) or exact sources "
        "(ares_synthetic/nq), from the same seeded sample",
    )
    s.add_argument(
        "--exclude-trained",
        action="store_true",
        help="qa-pairs: drop every family the grader declares it was trained on "
        "(its trained_on_families), so only what it never saw is reported",
    )
    s.add_argument(
        "--style",
        choices=[*WRITTEN_STYLES, "auto", "both"],
        default=None,
        help="answer style (default: the answer_style setting); both = CRAG extractive and "
        "CRAG generative side by side, with generative RAG as the baseline",
    )
    s.add_argument("--generator", metavar="NAME", default=None, help=GENERATOR_HELP)
    s.add_argument("--json", action="store_true", help="print one JSON object with every number")
    s.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="write report.md, results.json and PNG charts to DIR",
    )
    s.add_argument(
        "--online",
        action="store_true",
        help="allow the web fallback, without asking (default: offline, nothing leaves the machine)",
    )
    s.set_defaults(func=cmd_eval)


def _names(text: str) -> tuple[str, ...]:
    """``a,b`` -> ("a", "b"), blanks dropped."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError("give one or more names, separated by commas")
    return names


def _progress(quiet: bool) -> tuple[Callable, Callable[[], None]]:
    """A rich progress bar on a terminal (stderr), one line per part; nothing otherwise."""
    if quiet or not sys.stderr.isatty():
        return (lambda p: None), (lambda: None)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from localcrag.cli.output import raw_stderr

    bar = Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[detail]}"),
        console=Console(file=raw_stderr()),
        transient=True,
    )
    tasks: dict[str, Any] = {}
    bar.start()

    def update(p) -> None:
        if p.part not in tasks:
            tasks[p.part] = bar.add_task(p.part, total=p.total or None, detail="")
        bar.update(tasks[p.part], total=p.total or None, completed=p.done, detail=p.detail[:50])

    return update, bar.stop


def _settings(args: argparse.Namespace, base: Any) -> Any:
    """The user's settings with --grader / --grader-model applied; a model's own fitted
    thresholds (from the .json beside it) replace the setting's."""
    from localcrag.errors import LocalcragError

    update: dict[str, Any] = {}
    if args.calibrate is not None:
        update["calibrate"] = args.calibrate == "on"
    if args.grader:
        update["grader"] = args.grader
    if args.grader_model is not None:
        from localcrag.crag.graders.reader import read_sidecar

        path = args.grader_model.expanduser().resolve()
        if not path.is_file():
            raise LocalcragError(
                f"{path}: no such model file",
                "give a reader .onnx written by scripts/train_reader.py, or a fusion "
                "params .json written by scripts/fit_withheld.py",
            )
        meta = read_sidecar(path)  # <model>.json beside an .onnx; a .json file itself
        thresholds = meta.get("thresholds") or {}
        update.update(
            grader=args.grader or _grader_of(path, meta),
            grader_model=str(path),
            **{k: float(v) for k, v in thresholds.items() if k in THRESHOLDS},
        )
    if args.generator:
        from localcrag.cli.args import with_generator

        update["generator"] = with_generator(
            base.model_copy(deep=True), args.generator
        ).models.generator
    return base.merged(update) if update else base  # validated


THRESHOLDS = ("lower_threshold", "upper_threshold", "strip_threshold")  # the ones a file may fit


def _grader_of(path: Path, meta: dict[str, Any]) -> str:
    """The grader a --grader-model file belongs to when --grader is not given: an .onnx is
    a reader; a .json with grader_fusion.json's "graders" table is fusion params."""
    from localcrag.errors import LocalcragError

    if path.suffix == ".onnx":
        return "reader"
    if "graders" in meta:
        return "fusion"
    raise LocalcragError(
        f"{path}: neither a reader model (.onnx) nor a fusion params file "
        '(a .json with a "graders" table)',
        "give a file written by scripts/train_reader.py or scripts/fit_withheld.py, "
        "or name its grader with --grader",
    )


def _styles(style: str | None) -> tuple[str, ...]:
    from localcrag.eval.runner import STYLES

    return () if style is None else STYLES if style == "both" else (style,)


def cmd_eval(args: argparse.Namespace) -> int:
    from localcrag.errors import LocalcragError
    from localcrag.eval.adapters import load_dataset
    from localcrag.eval.report import terminal_table, write_report
    from localcrag.eval.runner import EvalOptions, run_eval
    from localcrag.settings import Settings

    if args.limit is not None and args.limit < 1:
        raise LocalcragError(f"--limit must be at least 1 (got {args.limit})")
    if args.k is not None and not 1 <= args.k <= 50:
        raise LocalcragError(f"-k must be between 1 and 50 (got {args.k})")
    if args.withhold and args.only != "decisions":
        raise LocalcragError(
            f"--withhold {args.withhold} measures the CRAG decision only", "add --only decisions"
        )
    ds = load_dataset(args.dataset)
    opts = EvalOptions(
        modes=("crag", "rag") if args.mode == "both" else (args.mode,),
        limit=args.limit,
        seed=args.seed,
        only=args.only,
        k=args.k,
        offline=not args.online,
        styles=_styles(args.style),
        rerank=args.rerank,
        article=args.article,
        slice=args.slice,
        withhold=args.withhold,
        sources=args.sources,
        exclude_trained=args.exclude_trained,
    )
    callback, close = _progress(args.json)
    try:
        res = run_eval(
            ds,
            _settings(args, Settings.load()),
            opts,
            pipeline_factory=pipeline_factory,
            on_progress=callback,
        )
    finally:
        close()
    written = write_report(res, args.out) if args.out else []
    if args.json:
        print(dumps(res, default=str))
    else:
        print(terminal_table(res))
        for w in written[:2]:
            print(f"wrote {w}")
        if len(written) > 2:
            print(f"wrote {len(written) - 2} chart(s) to {args.out}")
    return 0
