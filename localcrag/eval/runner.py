"""Runs an evaluation: ingest the dataset's corpus into its own index, then measure
retrieval, the retrieval evaluator and the answers (CRAG and RAG on the same questions).

Everything goes through the product's own objects (``Pipeline``, its library, retriever
and grader), so the numbers describe what users get. Nothing is printed: progress goes to
a callback and the result is one JSON-ready dict (schema in docs/eval.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localcrag.eval import metrics as m
from localcrag.eval.adapters import check_options
from localcrag.eval.answers import columns, run_answers
from localcrag.eval.datasets import Dataset, Pair, Question, select
from localcrag.eval.decisions import run_decisions
from localcrag.eval.withhold import goal, run_withheld
from localcrag.registry import WRITTEN_STYLES
from localcrag.settings import Settings, data_dir, field
from localcrag.types import Chunk

STYLES = WRITTEN_STYLES
RETRIEVAL_MODES = ("hybrid", "vector", "text")
POOL_FACTOR = 10  # chunks retrieved per unit of k, before per-unit aggregation


@dataclass(frozen=True)
class EvalOptions:
    modes: tuple[str, ...] = ("crag", "rag")
    limit: int | None = None
    seed: int = 0
    only: str | None = None  # one of PARTS, or None for every part that applies
    k: int | None = None  # default: settings.retrieval.top_k
    article: str | None = None  # SQuAD: only this article's questions (held-out reporting)
    slice: str | None = None  # a generic set: only the questions of this named slice
    rerank: int = 0  # > 0: also rank the main mode's first N chunks by the grader ("<mode>+rerank")
    offline: bool = True
    styles: tuple[str, ...] = ()  # answer styles to compare; () = the answer_style setting
    withhold: str | None = None  # "gold": decisions again with each question's gold units withheld
    sources: tuple[str, ...] = ()  # qa-pairs: only these source families (or exact sources)
    exclude_trained: bool = (
        False  # qa-pairs: drop the families the grader declares it was trained on
    )


@dataclass(frozen=True)
class Progress:
    part: str  # ingest | retrieval | evaluator | crag | rag
    done: int
    total: int
    detail: str = ""


ProgressFn = Callable[[Progress], None]
PipelineFactory = Callable[[Settings], Any]


class EvalSettings(Settings):
    """Settings whose index lives in the evaluation's folder, never in the user's index."""

    eval_index_dir: Path

    @property
    def index_dir(self) -> Path:
        return self.eval_index_dir


def eval_settings(base: Settings, index_dir: Path, offline: bool) -> Settings:
    """A copy of the user's settings (same models and thresholds) with its own index,
    deterministic decoding, and the network off unless asked."""
    changed = {"temperature": 0.0, "offline": offline or base.web.offline, "index_uri": None}
    fields = base.merged(changed).model_dump()  # eval: always local
    fields.pop("eval_index_dir", None)
    return EvalSettings(**fields, eval_index_dir=index_dir)


def workdir_for(ds: Dataset) -> Path:
    return data_dir() / "eval" / ds.key


def _default_factory(settings: Settings) -> Any:
    from localcrag.crag.pipeline import Pipeline

    return Pipeline(settings)


def run_eval(
    ds: Dataset,
    base: Settings,
    opts: EvalOptions,
    *,
    pipeline_factory: PipelineFactory | None = None,
    on_progress: ProgressFn | None = None,
) -> dict:
    """Run every part that applies (or only ``opts.only``) and return the results dict."""
    t0 = time.perf_counter()
    progress = on_progress or (lambda p: None)
    check_options(ds, opts)
    wd = workdir_for(ds)
    settings = eval_settings(base, wd / "index", opts.offline)
    k = opts.k or settings.retrieval.top_k
    pipe = (pipeline_factory or _default_factory)(settings)
    questions = select(_of_slice(_of_article(ds, opts.article), opts.slice), opts.limit, opts.seed)
    index = _ingest(pipe, ds, wd, progress)

    def want(part: str) -> bool:
        return opts.only in (None, part) and part in ds.parts

    retrieval = items_r = None
    if want("retrieval") and any(q.gold for q in questions):
        retrieval, items_r = _retrieval(
            pipe, ds, questions, k, settings.retrieval.retrieval_mode, progress, opts.rerank
        )
    evaluator = None
    if want("evaluator") and ds.evaluate is not None:  # a dataset that brings its own (qa-pairs)
        evaluator = ds.evaluate(
            pipe, opts, pipe.thresholds, lambda *a: progress(Progress("evaluator", *a))
        )
    elif want("evaluator") and ds.has_pairs:
        evaluator = _evaluator(pipe, ds, questions, opts.seed, settings, wd, progress)
    decisions = None
    if opts.only == "decisions" and want(
        "decisions"
    ):  # the answers part reaches the same decisions (and more)
        decisions = run_decisions(
            pipe, questions, k, lambda *a: progress(Progress("decisions", *a)), units=ds.units
        )
        if opts.withhold:  # the same run, so both decision goals come from one report
            decisions["withheld"] = run_withheld(
                pipe, ds, questions, k, lambda *a: progress(Progress("withheld", *a))
            )
            decisions["goal"] = goal(decisions)
    modes: dict[str, dict] = {}
    items_a: dict[str, list[dict]] = {}
    for column, mode, style in columns(opts.modes, opts.styles):
        summary: dict = {}
        if want("answers"):

            def answered(done: int, total: int, detail: str, _c: str = column) -> None:
                progress(Progress(_c, done, total, detail))

            summary, items_a[column] = run_answers(
                pipe,
                ds,
                questions,
                mode,
                k,
                settings.web.offline,
                answered,
                style,
            )
        main = (retrieval or {}).get("by_mode", {}).get(settings.retrieval.retrieval_mode, {})
        modes[column] = {
            **_empty_mode(),
            **summary,
            "k": k,
            "recall_at_k": main.get("recall_at_k"),
            "mrr_at_k": main.get("mrr_at_k"),
        }
    return {
        "dataset": ds.name,
        "path": str(ds.path),
        "questions": len(questions),
        "k": k,
        "seed": opts.seed,
        "limit": opts.limit,
        "only": opts.only,
        "article": opts.article,
        "slice": opts.slice,
        "settings": {
            f: field(f).get(settings)  # flat names: the results' format stays as it was
            for f in (
                "embedder",
                "generator",
                "grader",
                "grader_model",
                "upper_threshold",
                "lower_threshold",
                "calibrate",
                "top_k",
                "retrieval_mode",
                "chunk_tokens",
                "offline",
                "temperature",
                "llm_endpoint",
                "llm_endpoint_model",
            )
        },
        "index": index,
        "retrieval": retrieval,
        "modes": modes,
        "evaluator": evaluator or _empty_evaluator(),
        "decisions": decisions,
        "items": _merge_items(questions, items_r or {}, items_a),
        "elapsed_s": round(time.perf_counter() - t0, 1),
    }


def _of_slice(questions: list[Question], name: str | None) -> list[Question]:
    """The questions of one named slice of a generic set ("held": the ones never looked at
    while fixing)."""
    if name is None:
        return questions
    names = sorted({q.slice for q in questions if q.slice})
    if name not in names:
        from localcrag.errors import LocalcragError

        raise LocalcragError(
            f"--slice {name!r}: no question of this set is in it",
            f"choose one of: {', '.join(names) or '(none: its questions name no slice)'}",
        )
    return [q for q in questions if q.slice == name]


def _of_article(ds: Dataset, article: str | None) -> list[Question]:
    """The questions of one SQuAD article (all paragraphs stay indexed: easy negatives)."""
    if article is None:
        return ds.questions
    titles = sorted({group for group, _ in ds.passages.values()})
    if article not in titles:
        from localcrag.errors import LocalcragError

        raise LocalcragError(
            f"--article {article!r}: not in {ds.path.name}",
            f"choose one of: {', '.join(titles) or '(no articles: not a SQuAD file)'}",
        )
    return [q for q in ds.questions if q.context_id and ds.passages[q.context_id][0] == article]


def _empty_mode() -> dict:
    return {
        k: None
        for k in (
            "n",
            "wrong_answer_rate",
            "wrong_refusal_rate",
            "trust",
            "decision_accuracy",
            "answer_f1",
            "short_answer_f1",
            "answer_recall",
            "unsupported_rate",
            "draft_unsupported_rate",
            "style",
            "refusal_accuracy",
            "evidence_recall",
            "first_token_ms_p50",
            "first_token_ms_p95",
            "total_ms_p50",
            "latency_ms_p50",
            "actions",
            "errors",
        )
    }


def _empty_evaluator() -> dict:
    return {
        k: None
        for k in (
            "grader",
            "pairs",
            "auc_all",
            "auc_easy",
            "auc_hard",
            "auc_near_miss",
            "auc_ablated",
            "accuracy",
            "accuracy_upper",
            "ms_per_chunk",
            "by_kind",
            "scores",
        )
    }


def _ingest(pipe: Any, ds: Dataset, wd: Path, progress: ProgressFn) -> dict:
    t = time.perf_counter()
    paths = ds.corpus(wd)
    report = pipe.library.ingest(
        paths,
        prune=True,
        on_progress=lambda p: progress(Progress("ingest", p.done, p.total, Path(p.path).name)),
    )
    if report.failed:
        from localcrag.errors import LocalcragError

        path, err = report.failed[0]
        raise LocalcragError(
            f"ingesting the {ds.name} corpus failed for {len(report.failed)} file(s): {err}"
        )
    return {
        "dir": str(pipe.settings.index_dir),
        "chunks": report.chunks,
        "indexed": len(report.indexed),
        "unchanged": len(report.unchanged),
        "seconds": round(time.perf_counter() - t, 1),
    }


def _retrieval(
    pipe: Any,
    ds: Dataset,
    questions: list[Question],
    k: int,
    main: str,
    progress: ProgressFn,
    rerank: int = 0,
) -> tuple[dict, dict[str, dict]]:
    """Recall@k and MRR@k over gold units, for vector, text and hybrid search.

    k*POOL_FACTOR chunks are retrieved and ranked per unit by their best chunk, so a long
    gold document split into many chunks counts once and does not hide the others. With
    ``rerank`` = N, the main mode's first N chunks are also re-ordered by the grader's
    score (the rest keep their place after them), reported as ``<main>+rerank``.
    """
    from localcrag.crag.retrieve import Retriever

    lib = pipe.library
    Retriever(pipe.settings, lib).check_ready()
    asked = [q for q in questions if q.gold]
    modes = RETRIEVAL_MODES + ((f"{main}+rerank",) if rerank else ())
    scores: dict[str, dict[str, list]] = {mode: {"r": [], "m": []} for mode in modes}
    items: dict[str, dict] = {}
    ms: list[float] = []
    rerank_ms: list[float] = []
    for i, q in enumerate(asked):
        vec = lib.embedder.embed([q.question])[0]
        items[q.qid] = {}
        for mode in RETRIEVAL_MODES:
            t = time.perf_counter()
            hits = lib.store.search(q.question, vec, k * POOL_FACTOR, mode)
            if mode == main:
                ms.append((time.perf_counter() - t) * 1000)
            ranking = m.dedupe_units(ds.units(h.chunk) for h in hits)
            scores[mode]["r"].append(m.recall_at_k(ranking, q.gold, k))
            scores[mode]["m"].append(m.mrr_at_k(ranking, q.gold, k))
            if mode == main:
                items[q.qid] = {"ranking": [str(u) for u in ranking[:k]]}
            if mode == main and rerank:
                t = time.perf_counter()
                grades = pipe.grader.grade(q.question, [h.chunk for h in hits[:rerank]])
                rerank_ms.append((time.perf_counter() - t) * 1000)
                order = sorted(range(len(grades)), key=lambda j: -grades[j].score)
                reranked = m.dedupe_units(
                    ds.units(hits[j].chunk) for j in order + list(range(rerank, len(hits)))
                )
                scores[f"{main}+rerank"]["r"].append(m.recall_at_k(reranked, q.gold, k))
                scores[f"{main}+rerank"]["m"].append(m.mrr_at_k(reranked, q.gold, k))
        progress(Progress("retrieval", i + 1, len(asked), q.question[:60]))
    by_mode = {
        mode: {"recall_at_k": m.rounded(m.mean(s["r"])), "mrr_at_k": m.rounded(m.mean(s["m"]))}
        for mode, s in scores.items()
    }
    return {
        "k": k,
        "questions": len(asked),
        "pool": k * POOL_FACTOR,
        "main": main,
        "by_mode": by_mode,
        "search_ms_p50": m.rounded(m.percentile(ms, 50), 1),
        "rerank": rerank,
        "rerank_ms_p50": m.rounded(m.percentile(rerank_ms, 50), 1),
    }, items


def _evaluator(
    pipe: Any,
    ds: Dataset,
    questions: list[Question],
    seed: int,
    settings: Settings,
    wd: Path,
    progress: ProgressFn,
) -> dict:
    """The pipeline's own grader on labelled (question, passage) pairs, one call per question
    (as the pipeline grades its k chunks together)."""
    grader = pipe.grader
    grader.score_texts("warm up", ["Load the models before the clock starts."])
    pairs = ds.pairs(questions, seed)
    by_q: dict[str, list[Pair]] = {}
    for p in pairs:
        by_q.setdefault(p.qid, []).append(p)
    scored: list[tuple[Pair, float]] = []
    errors = 0
    spent = 0.0
    for i, group in enumerate(by_q.values()):
        chunks = [
            Chunk(
                f"pair:{p.passage_id}",
                str(wd / "docs" / f"{p.passage_id}.md"),
                p.text,
                1,
                1,
                0,
                len(p.text),
                ds.passages[p.passage_id][0].replace("_", " "),
            )
            for p in group
        ]
        t = time.perf_counter()
        grades = grader.grade(group[0].question, chunks)
        spent += time.perf_counter() - t
        errors += sum(g.error is not None for g in grades)
        scored += [(p, float(g.score)) for p, g in zip(group, grades)]
        progress(Progress("evaluator", i + 1, len(by_q), group[0].question[:60]))
    kinds = ("relevant", "easy", "hard", "near_miss", "ablated")
    s = {kind: [sc for p, sc in scored if p.kind == kind] for kind in kinds}
    negatives = s["easy"] + s["hard"] + s["near_miss"] + s["ablated"]
    th = pipe.thresholds
    up, lo = th.upper, th.lower
    return {
        "grader": grader.name,
        "pairs": len(scored),
        "errors": errors,
        "auc_all": m.rounded(m.roc_auc(s["relevant"], negatives)),
        "auc_easy": m.rounded(m.roc_auc(s["relevant"], s["easy"])),
        "auc_hard": m.rounded(m.roc_auc(s["relevant"], s["hard"])),
        "auc_near_miss": m.rounded(m.roc_auc(s["relevant"], s["near_miss"])),
        "auc_ablated": m.rounded(m.roc_auc(s["relevant"], s["ablated"])),
        "accuracy": m.rounded(m.threshold_accuracy(s["relevant"], negatives, lo)),
        "accuracy_upper": m.rounded(m.threshold_accuracy(s["relevant"], negatives, up)),
        "upper_threshold": round(up, 4),
        "lower_threshold": round(lo, 4),
        "thresholds": th.to_json(),
        "ms_per_chunk": m.rounded(spent * 1000 / len(scored), 1) if scored else None,
        "by_kind": {
            kind: {
                "n": len(v),
                "mean": m.rounded(m.mean(v)),
                "at_or_above_lower": m.rounded(m.mean([x >= lo for x in v])),
                "at_or_above_upper": m.rounded(m.mean([x >= up for x in v])),
            }
            for kind, v in s.items()
        },
        "scores": {kind: [round(x, 4) for x in v] for kind, v in s.items()},
    }


def _merge_items(
    questions: list[Question], retrieval: dict[str, dict], answers: dict[str, list[dict]]
) -> list[dict]:
    by_mode = {mode: {it["qid"]: it for it in rows} for mode, rows in answers.items()}
    out = []
    for q in questions:
        item: dict = {
            "qid": q.qid,
            "question": q.question,
            "answerable": q.answerable,
            "gold": list(q.gold),
        }
        if q.qid in retrieval:
            item["retrieved"] = retrieval[q.qid]["ranking"]
        for mode, rows in by_mode.items():
            if q.qid in rows:
                item[mode] = {
                    k: v for k, v in rows[q.qid].items() if k not in ("qid", "answerable")
                }
        out.append(item)
    return out
