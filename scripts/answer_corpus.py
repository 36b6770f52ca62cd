"""Record real outputs of the bundled generator as a regression corpus (tests/data/answer_corpus.json).

Why: the artefacts the bundled model was seen writing ("The answer:", "[4)", echoed file labels, restated rules)
come from the real SmolLM2-135M, not from fakes. This script runs the product's own
pipeline (retrieve, grade, decide, refine: the evidence the generator really sees) on
questions from every set in the shared data, and records the prompt's numbered evidence
with the labels the model was shown and the model's raw stream, *in full*: the recorder
generates to the end (EOS or max_answer_tokens) even when the product's post-processing
stops reading early, so the corpus does not depend on today's post-processing.

Deterministic: temperature 0 (greedy, llama seed 0), questions picked by eval's seeded
``select``. Offline: nothing leaves the machine. Run from the repo root:

    LOCALCRAG_HOME=/tmp/corpus-home python scripts/answer_corpus.py --data ../shared/data

Questions where the pipeline refuses without generating (offline Incorrect) produce no
output and are not stored. Takes about 15-25 minutes on 2 shared cores; progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from localcrag.llm.chat import GREEDY, Sampling

# Questions over the attention paper (it has no question set of its own): the kinds of
# question once reported as answered wrongly (a count, a score, a name, a setting).
ATTENTION_QUESTIONS = [
    "How many attention heads does the Transformer base model use?",
    "What BLEU score did the big Transformer get on English-to-French?",
    "Which optimizer was used to train the Transformer?",
    "How many layers does the encoder stack have?",
    "What is the dimensionality of the model's outputs, d_model?",
    "Who are the authors of Attention Is All You Need?",
]


class RecordingLLM:
    """The real generator, with every ``stream`` generated to the end and recorded."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self.calls: list[tuple[str, str]] = []  # (prompt, full raw output)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Any = None
    ) -> Iterator[str]:
        # no cancel: generate in full, the corpus is the model's, not the product's
        pieces = list(self._llm.stream(prompt, max_tokens, sampling))
        self.calls.append((prompt, "".join(pieces)))
        return iter(pieces)


def _attention_dataset(data: Path, tmp: Path) -> Path:
    """A generic eval folder (questions.jsonl + docs/) over the attention paper."""
    folder = tmp / "attention"
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    link = folder / "docs" / "attention_is_all_you_need.pdf"
    if not link.exists():
        link.symlink_to((data / "ai-information" / "attention_is_all_you_need.pdf").resolve())
    (folder / "questions.jsonl").write_text(
        "".join(json.dumps({"question": q}) + "\n" for q in ATTENTION_QUESTIONS), encoding="utf-8"
    )
    return folder


def _run_set(
    name: str, path: Path, plan: dict[str, int | None], llm: RecordingLLM, seed: int, log: Any
) -> list[dict]:
    from localcrag import events as ev
    from localcrag.crag.answer.generate import build_messages, source_label
    from localcrag.crag.pipeline import Pipeline
    from localcrag.eval.adapters import load_dataset
    from localcrag.eval.datasets import select
    from localcrag.eval.runner import eval_settings, workdir_for
    from localcrag.settings import Settings

    ds = load_dataset(path)
    wd = workdir_for(ds)
    settings = eval_settings(Settings.load(), wd / "index", offline=True)
    pipe = Pipeline(settings, generator=llm)
    report = pipe.library.ingest(ds.corpus(wd), prune=True)
    if report.failed:
        raise SystemExit(f"{name}: ingesting the corpus failed: {report.failed[0]}")
    items: list[dict] = []
    for mode, limit in plan.items():
        questions = select(ds.questions, limit, seed)
        for i, q in enumerate(questions, 1):
            t = time.perf_counter()
            llm.calls.clear()
            done = action = None
            for e in pipe.run(q.question, mode=mode, confirm_web=lambda query: False):
                if isinstance(e, ev.DecisionMade):
                    action = e.decision.action.value
                elif isinstance(e, ev.AnswerDone):
                    done = e
            prompt = (
                llm.chat_prompt(build_messages(" ".join(q.question.split()), list(done.evidence)))
                if done and done.evidence
                else None
            )
            raw = next((out for p, out in llm.calls if p == prompt), None)
            print(
                f"{name} {mode} {i}/{len(questions)} {action or '-'} "
                f"{'generated' if raw is not None else 'no generation'} "
                f"{time.perf_counter() - t:.1f}s  {q.question[:60]}",
                file=log,
                flush=True,
            )
            if raw is None:
                continue
            items.append(
                {
                    "id": f"{name}:{q.qid}:{mode}",
                    "set": name,
                    "mode": mode,
                    "action": action,
                    "answerable": q.answerable,
                    "question": q.question,
                    "evidence": [
                        {"n": e.n, "label": source_label(e), "text": e.text} for e in done.evidence
                    ],
                    "raw": raw,
                }
            )
    return items


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data", type=Path, default=Path("../shared/data"), help="the shared data folder"
    )
    ap.add_argument("--out", type=Path, default=Path("tests/data/answer_corpus.json"))
    ap.add_argument("--seed", type=int, default=0, help="seed of the question slices")
    ap.add_argument(
        "--scale", type=float, default=1.0, help="multiply every slice size (a quick run: 0.2)"
    )
    args = ap.parse_args(argv)

    from localcrag.llm.gguf import load_llm
    from localcrag.settings import Settings

    s = Settings.load()
    llm = RecordingLLM(
        load_llm(
            s.model_path(s.models.generator), n_ctx=s.generation.n_ctx, threads=s.generation.threads
        )
    )
    sz = lambda n: max(1, round(n * args.scale))  # noqa: E731
    d = args.data
    with tempfile.TemporaryDirectory() as tmp:
        sets = [  # (name, dataset path, {mode: question limit})
            ("ai-information", d / "ai-information" / "val.json", {"crag": None, "rag": sz(10)}),
            ("anthropic-docs", d / "anthropic-docs", {"crag": sz(24), "rag": sz(10)}),
            ("squad2", d / "squad2-dev-subset" / "small.json", {"crag": sz(40), "rag": sz(10)}),
            ("attention", _attention_dataset(d, Path(tmp)), {"crag": None, "rag": None}),
        ]
        items: list[dict] = []
        for name, path, plan in sets:
            items += _run_set(name, path, plan, llm, args.seed, sys.stderr)
    corpus = {
        "about": "Raw streamed outputs of the bundled generator with the evidence it was shown "
        "(labels as in the prompt). Regenerate: scripts/answer_corpus.py.",
        "generator": s.models.generator,
        "temperature": 0.0,
        "seed": args.seed,
        "items": items,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    body = ",\n".join(json.dumps(it, ensure_ascii=False) for it in items)
    head = json.dumps({k: v for k, v in corpus.items() if k != "items"}, ensure_ascii=False)[:-1]
    args.out.write_text(f'{head}, "items": [\n{body}\n]}}\n', encoding="utf-8")
    print(
        f"wrote {len(items)} items to {args.out} ({args.out.stat().st_size:,} bytes)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
