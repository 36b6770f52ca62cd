"""Training pairs for the cross-encoder evaluator (scripts/train_evaluator.py).

Every pair is (question, passage window, label, kind). Windows are 1-3 consecutive
sentences, the unit the grader scores at run time (a chunk's score is its best window).
Two sources:

* SQuAD 2.0 article(s) given for training: an answerable question with a window holding
  its answer sentence (positive); the same window with the answer sentence swapped for
  another sentence of the paragraph (``ablated``); a window of another paragraph of the
  same article (``hard``); the question with a changed number or name (``perturbed``);
  an unanswerable question against its own paragraph's closest window (``near``).
* Template questions over general text (the attention paper, the project's docs, the
  Python reference shipped in the standard library's ``pydoc_data``): a year, number,
  name or defined term in a sentence becomes a what-year / how-many / what / what-is
  question; negatives as above (the sentence removed, other windows, perturbed).

No text of the article or data set being reported on is used (the caller picks articles).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from localcrag.crag.probes import NAME, NUMBER, YEAR, sentences, template_questions, usable
from localcrag.crag.probes import leaks as _source_leaks
from localcrag.eval.ablation import answer_sentence_ids
from localcrag.ingest.chunking import split_sentences
from localcrag.textutil import terms



@dataclass(frozen=True)
class Example:
    question: str
    passage: str
    label: int
    kind: str


def window_with(sents: list[str], i: int, rng: random.Random) -> tuple[int, int]:
    """A random window of 1-3 sentences that contains sentence ``i``."""
    size = rng.choice((1, 2, 2, 3))  # the run-time windows are 3 sentences; strips are 2
    a = rng.randint(max(0, i - size + 1), i)
    return a, min(len(sents), a + size)


def window_without(sents: list[str], drop: set[int], size: int, rng: random.Random) -> str | None:
    """A window of ``size`` sentences from the paragraph with the ``drop`` sentences cut out
    (so it reads like the ablated neighbourhood of the answer)."""
    keep = [s for j, s in enumerate(sents) if j not in drop]
    if not keep:
        return None
    a = rng.randint(0, max(0, len(keep) - size))
    return " ".join(keep[a:a + size])


def perturb(question: str, pool_names: list[str], rng: random.Random) -> str | None:
    """The question with one year, number or name changed (None if it has none)."""
    if (m := YEAR.search(question)):
        y = int(m.group()) + rng.choice((-7, -3, -2, -1, 1, 2, 3, 5, 10))
        return question[:m.start()] + str(y) + question[m.end():]
    if (m := NUMBER.search(question)):
        n = m.group().replace(",", "")
        try:
            v = float(n)
        except ValueError:
            return None
        new = v * rng.choice((2, 3, 0.5, 10)) + rng.choice((1, 2, 7))
        text = str(int(new)) if float(new).is_integer() or "." not in n else f"{new:.1f}"
        return question[:m.start()] + text + question[m.end():]
    names = [m for m in NAME.finditer(question)]
    others = [n for n in pool_names if n not in question]
    if names and others:
        m = rng.choice(names)
        return question[:m.start()] + rng.choice(others) + question[m.end():]
    return None


def synthetic(docs: dict[str, str], per_doc: int, rng: random.Random) -> list[Example]:
    """Template questions over each document, with positives and containment negatives."""
    out: list[Example] = []
    for name in sorted(docs):
        sents = sentences(docs[name])
        names = sorted({m.group() for s in sents for m in NAME.finditer(s)})
        cands = [(i, q) for i, s in enumerate(sents) if usable(s) for q in template_questions(s)]
        rng.shuffle(cands)
        for i, (q, _kind) in cands[:per_doc]:
            a, b = window_with(sents, i, rng)
            window = " ".join(sents[a:b])
            out.append(Example(q, window, 1, "pos"))
            cut = window_without(sents, {i}, b - a, rng)
            if cut and not _leaks(q, cut, sents[i]):
                out.append(Example(q, cut, 0, "ablated"))
            j = rng.randrange(len(sents))
            far = " ".join(sents[j:j + rng.choice((1, 2, 3))])
            if abs(j - i) > 3 and not _leaks(q, far, sents[i]):
                out.append(Example(q, far, 0, "hard"))
            if (p := perturb(q, names, rng)) is not None:
                out.append(Example(p, window, 0, "perturbed"))
    return out


def _leaks(question: str, passage: str, source: str) -> bool:
    """True when the passage repeats the source sentence's answer-bearing words (not a safe negative)."""
    return _source_leaks(source, passage, question)


def squad_examples(paras: list[dict], qs: list[dict], rng: random.Random) -> list[Example]:
    """Pairs from SQuAD paragraphs (``{"text"}``) and questions (``{"question", "para",
    "impossible", "answers": [(start, end), ...], "texts": [...]}``)."""
    out: list[Example] = []
    names = sorted({m.group() for p in paras for m in NAME.finditer(p["text"])})
    split = [(split_sentences(p["text"]), p["text"]) for p in paras]
    for q in qs:
        spans, text = split[q["para"]]
        sents = [text[a:b] for a, b in spans]
        if q["impossible"]:  # near miss: the window it was written from (most shared terms)
            qt = set(terms(q["question"]))
            best = max(range(len(sents)), key=lambda j: len(qt & set(terms(sents[j]))))
            a, b = window_with(sents, best, rng)
            out.append(Example(q["question"], " ".join(sents[a:b]), 0, "near"))
            continue
        ids = sorted({i for s, e in q["answers"] for i in answer_sentence_ids(spans, s, e)})
        if not ids:
            continue
        a, b = window_with(sents, ids[0], rng)
        b = max(b, ids[-1] + 1)
        window = " ".join(sents[a:b])
        out.append(Example(q["question"], window, 1, "pos"))
        cut = window_without(sents, set(ids), max(1, b - a), rng)
        if cut and not any(t.lower() in cut.lower() for t in q["texts"]):
            out.append(Example(q["question"], cut, 0, "ablated"))
        other = rng.choice([i for i, p in enumerate(paras) if i != q["para"]])
        osents = sentences(paras[other]["text"])
        j = rng.randrange(len(osents))
        far = " ".join(osents[j:j + rng.choice((1, 2, 3))])
        if not any(t.lower() in far.lower() for t in q["texts"]):
            out.append(Example(q["question"], far, 0, "hard"))
        if (p := perturb(q["question"], names, rng)) is not None:
            out.append(Example(p, window, 0, "perturbed"))
    return out


def general_docs(repo: Path, shared: Path) -> dict[str, str]:
    """General text the project may train on: the attention paper, the project's docs,
    and the Python language reference from the standard library (pydoc_data). The README
    and docs/evaluator.md are left out: they quote evaluation questions."""
    from pydoc_data.topics import topics

    from localcrag.ingest.parse import parse_document

    docs = {"attention": parse_document(shared / "ai-information" / "attention_is_all_you_need.pdf").text}
    for p in sorted((repo / "docs").glob("*.md")):
        if p.name != "evaluator.md":  # it quotes SQuAD and val.json questions: never train on those
            docs[p.name] = p.read_text(encoding="utf-8")
    for key in sorted(topics):
        docs[f"pydoc:{key}"] = topics[key]
    return docs
