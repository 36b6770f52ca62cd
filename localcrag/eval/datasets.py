"""Dataset adapters: question sets plus the corpus to index and the gold units per chunk.

Every adapter yields the same shape, so the runner never knows where questions came from:
``Question``s with reference answers and gold *unit* ids, the corpus files to ingest, and
``units(chunk)`` that maps a retrieved chunk back to the gold units it covers (a chapter,
a paragraph, a documentation chunk, a file). Corpora given as JSON are materialised as one
Markdown file per gold unit, so the map is simply the file name. Files are never edited.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError
from localcrag.eval.ablation import ablate
from localcrag.types import Chunk

PARTS = ("retrieval", "evaluator", "decisions", "answers")
REFUSAL_IDEAL = "I don't have enough information to answer that."

# Label fixes from /work/shared/data/README.md (checked against the PDF text).
_NOT_ANSWERABLE = {"What is Direct Air Capture (DAC) used for?"}
_GOLD_FIX = {"What is the role of AI in smart grids?": ("chapter-14",)}


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    answers: tuple[str, ...]  # reference answers; empty when not answerable
    answerable: bool
    gold: tuple[str, ...] = ()  # gold unit ids (empty: no retrieval gold)
    context_id: str | None = None  # SQuAD: the question's own paragraph
    answer_spans: tuple[tuple[int, int], ...] = ()  # SQuAD: (start, end) of each answer in it
    slice: str | None = None  # a generic set's named slice ("dev", "held"): --slice reports one


@dataclass(frozen=True)
class Pair:
    """A labelled (question, passage) pair for the retrieval evaluator."""

    qid: str
    question: str
    passage_id: str
    text: str
    kind: str  # relevant | easy | hard | near_miss | ablated
    label: int


@dataclass
class Dataset:
    name: str  # ai-information | squad2 | anthropic-docs | generic
    path: Path
    key: str  # folder under <home>/eval/ holding this dataset's docs and index
    questions: list[Question]
    materialise: Callable[[Path], list[Path]]  # workdir -> paths to ingest
    unit_of: Callable[[Chunk], tuple[str, ...]]
    passages: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (group, text)
    unit_labels: dict[str, str] = field(default_factory=dict)  # unit id -> original id (links)
    parts: tuple[str, ...] = PARTS  # the parts of an evaluation that apply to this dataset
    # The evaluator part when the dataset brings its own (qa-pairs): (pipe, opts, thresholds,
    # progress(done, total, detail)) -> the results' "evaluator" dict; None: SQuAD-style pairs.
    evaluate: Callable[[Any, Any, Any, Callable[[int, int, str], None]], dict] | None = None

    def corpus(self, workdir: Path) -> list[Path]:
        return self.materialise(workdir)

    def units(self, chunk: Chunk) -> tuple[str, ...]:
        return self.unit_of(chunk)

    @property
    def has_pairs(self) -> bool:
        return bool(self.passages)

    def pairs(self, questions: list[Question], seed: int) -> list[Pair]:
        """Own paragraph = relevant; another article's = easy; same article's = hard;
        an unanswerable question's own paragraph = near miss; the own paragraph without
        the sentences holding the answer = ablated (skipped if an answer string is still in
        what is left). One negative of each kind per question, per-question RNG."""
        out: list[Pair] = []
        ids = sorted(self.passages)
        for q in questions:
            if q.context_id is None:
                continue
            group, text = self.passages[q.context_id]
            if not q.answerable:
                out.append(Pair(q.qid, q.question, q.context_id, text, "near_miss", 0))
                continue
            out.append(Pair(q.qid, q.question, q.context_id, text, "relevant", 1))
            cut = ablate(text, q.answer_spans)
            if cut is not None and not any(a.lower() in cut.lower() for a in q.answers):
                out.append(Pair(q.qid, q.question, q.context_id, cut, "ablated", 0))
            rng = random.Random(f"{seed}:{q.qid}")
            same = [p for p in ids if self.passages[p][0] == group and p != q.context_id]
            other = [p for p in ids if self.passages[p][0] != group]
            for kind, pool in (("easy", other), ("hard", same)):
                if pool:
                    pid = rng.choice(pool)
                    out.append(Pair(q.qid, q.question, pid, self.passages[pid][1], kind, 0))
        return out


def select(questions: list[Question], limit: int | None, seed: int) -> list[Question]:
    """A deterministic, balanced slice: answerable and unanswerable alternate, file order kept."""
    if limit is None or limit >= len(questions):
        return list(questions)
    rng = random.Random(seed)
    yes = [i for i, q in enumerate(questions) if q.answerable]
    no = [i for i, q in enumerate(questions) if not q.answerable]
    rng.shuffle(yes)
    rng.shuffle(no)
    picked: list[int] = []
    while len(picked) < limit and (yes or no):
        for pool in (yes, no):
            if pool and len(picked) < limit:
                picked.append(pool.pop(0))
    return [questions[i] for i in sorted(picked)]


def _write_if_changed(path: Path, text: str) -> None:
    """Same bytes leave the file alone, so re-runs re-use the index (ingest is incremental)."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _materialiser(units: dict[str, tuple[str, str]]) -> Callable[[Path], list[Path]]:
    """Write one `<id>.md` per unit (heading + text) under <workdir>/docs; drop strays."""

    def write(workdir: Path) -> list[Path]:
        docs = workdir / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        for uid, (heading, text) in units.items():
            body = text.strip()
            if body.startswith(heading + "\n"):  # anthropic-docs texts repeat their heading line
                body = body[len(heading) :].strip()
            _write_if_changed(docs / f"{uid}.md", f"# {heading}\n\n{body}\n")
        for stray in docs.glob("*.md"):
            if stray.stem not in units:
                stray.unlink()
        return [docs]

    return write


def _by_stem(chunk: Chunk) -> tuple[str, ...]:
    return (Path(chunk.source).stem,)


def dataset_key(name: str, path: Path) -> str:
    return f"{name}-{hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:6]}"


def load_ai_information(path: Path) -> Dataset:
    items = json.loads(path.read_text(encoding="utf-8"))
    pdf = path.parent / "AI_Information.pdf"
    questions = []
    for i, it in enumerate(items):
        q = it["question"]
        answerable = bool(it["has_answer"]) and q not in _NOT_ANSWERABLE
        gold = _GOLD_FIX.get(q) or tuple(
            dict.fromkeys(
                f"chapter-{n}" for n in re.findall(r"Chapter\s+(\d+)", it.get("reference") or "")
            )
        )
        questions.append(
            Question(
                f"val-{i}",
                q,
                (it["ideal_answer"],) if answerable else (),
                answerable,
                gold if answerable else (),
            )
        )
    return Dataset(
        "ai-information",
        path,
        dataset_key("ai-information", path),
        questions,
        lambda workdir: [pdf],
        _chapter_mapper(pdf),
    )


def _chapter_mapper(pdf: Path) -> Callable[[Chunk], tuple[str, ...]]:
    """Chunks map to the chapters their character span overlaps (offsets of the parsed text)."""
    spans: list[tuple[int, str]] = []

    def units(chunk: Chunk) -> tuple[str, ...]:
        if Path(chunk.source).resolve() != pdf.resolve():
            return ()
        if not spans:
            from localcrag.ingest.parse import parse_document

            text = parse_document(pdf).text
            for m in re.finditer(r"(?m)^\s*Chapter\s+(\d+)\s*:", text):
                if all(u != f"chapter-{m.group(1)}" for _, u in spans):
                    spans.append((m.start(), f"chapter-{m.group(1)}"))
            spans.append((len(text) + 1, ""))
        return tuple(
            u
            for (a, u), (b, _) in zip(spans, spans[1:])
            if a < chunk.char_end and chunk.char_start < b
        )

    return units


# --- SQuAD 2.0 ------------------------------------------------------------------------------


def load_squad(path: Path) -> Dataset:
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    passages: dict[str, tuple[str, str]] = {}
    questions = []
    for article in data:
        title = article["title"]
        for j, para in enumerate(article["paragraphs"]):
            pid = f"{title}-{j:03d}"
            passages[pid] = (title, para["context"])
            for qa in para["qas"]:
                answerable = not qa.get("is_impossible", False)
                raw = qa.get("answers", []) if answerable else []
                answers = tuple(dict.fromkeys(a["text"] for a in raw))
                spans = tuple(
                    dict.fromkeys(
                        (a["answer_start"], a["answer_start"] + len(a["text"])) for a in raw
                    )
                )
                questions.append(
                    Question(
                        qa["id"],
                        qa["question"],
                        answers,
                        answerable,
                        (pid,) if answerable else (),
                        pid,
                        spans,
                    )
                )
    units = {pid: (group.replace("_", " "), text) for pid, (group, text) in passages.items()}
    return Dataset(
        "squad2",
        path,
        dataset_key("squad2", path),
        questions,
        _materialiser(units),
        _by_stem,
        passages,
    )


def _slug(link: str) -> str:
    tail = re.sub(r"^https?://[^/]+/(en/)?(docs/)?", "", link)
    return re.sub(r"[^A-Za-z0-9]+", "-", tail).strip("-").lower()[:120] or "doc"


def load_anthropic(folder: Path) -> Dataset:
    docs = json.loads((folder / "anthropic_docs.json").read_text(encoding="utf-8"))
    items = json.loads((folder / "docs_evaluation_dataset.json").read_text(encoding="utf-8"))
    by_link: dict[str, str] = {}
    units: dict[str, tuple[str, str]] = {}
    for d in docs:
        uid = _slug(d["chunk_link"])
        while uid in units:
            uid += "-x"
        units[uid] = (d["chunk_heading"], d["text"])
        by_link[d["chunk_link"]] = uid
    stem_to_link = {v: k for k, v in by_link.items()}
    questions = [
        Question(
            it["id"],
            it["question"],
            (it["correct_answer"],),
            True,
            tuple(by_link[c] for c in it["correct_chunks"] if c in by_link),
        )
        for it in items
    ]
    return Dataset(
        "anthropic-docs",
        folder,
        dataset_key("anthropic-docs", folder),
        questions,
        _materialiser(units),
        _by_stem,
        unit_labels=stem_to_link,
    )


def load_generic(folder: Path, docs: Path | None = None, name: str = "generic") -> Dataset:
    """`questions.jsonl` ({question, answer?, answerable?, gold_sources?}) + `docs/` (or the
    folder ``docs`` a fetched set names)."""
    docs = (docs or folder / "docs").resolve()
    questions = []
    for n, line in enumerate(
        (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines(), 1
    ):
        if not line.strip():
            continue
        try:
            it = json.loads(line)
            text = str(it["question"])
        except (ValueError, KeyError, TypeError) as exc:
            raise LocalcragError(
                f"{folder / 'questions.jsonl'}: line {n}: not a question object ({exc})",
                'each line must be {"question": ..., "answer": ..., ...}',
            ) from exc
        answer = it.get("answer")
        answers = tuple(answer if isinstance(answer, list) else [answer]) if answer else ()
        answerable = bool(it.get("answerable", True))
        gold = tuple(Path(g).as_posix() for g in it.get("gold_sources") or ())
        questions.append(
            Question(
                f"q{n}",
                text,
                answers if answerable else (),
                answerable,
                gold if answerable else (),
                slice=str(it["slice"]) if it.get("slice") else None,
            )
        )

    def units(chunk: Chunk) -> tuple[str, ...]:
        p = Path(chunk.source)
        return (p.relative_to(docs).as_posix(),) if p.is_relative_to(docs) else ()

    return Dataset(
        name,
        folder,
        dataset_key(folder.name or name, folder),
        questions,
        lambda workdir: [docs],
        units,
    )
