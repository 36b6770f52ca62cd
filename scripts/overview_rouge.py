"""How well a document's overview says what the document is about: its sentences against
the author's abstract, ROUGE-1 recall, beside the first three sentences as a baseline.

    python scripts/fetch_overview_set.py     # 10 public PDFs with an abstract (.cache/overview/)
    python scripts/overview_rouge.py         # indexes them in .cache/overview-home, prints the table

ROUGE-1 recall: the share of the abstract's words (counted with repeats, lower-cased,
Unicode-normalised so ligatures read as letters, stemmed as the index stems them) that the
compared sentences hold, each word at most as often as they hold it. Two conditions:
"as shipped" (the document as it is, abstract included: an overview that finds the
author's abstract quotes it) and "abstract withheld" (every sentence of the abstract taken
out of the document's passages, which are then embedded again, so the overview's own
choice of central sentences is what is measured). Lead-3: the first three sentences of six
or more words, in the same two conditions, and (withheld) the first sentences up to as
many words as the overview's, so a longer overview does not win by length alone.
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def tokens(text: str) -> Counter[str]:
    from localcrag.textutil import stem, words

    return Counter(stem(w.lower()) for w in words(unicodedata.normalize("NFKC", text)))


def recall(reference: str, said: str) -> float:
    ref, got = tokens(reference), tokens(said)
    return sum(min(n, got[w]) for w, n in ref.items()) / max(sum(ref.values()), 1)


def in_abstract(sentence: str, abstract: Counter[str]) -> bool:
    """A sentence of the abstract itself (nearly all its words are the abstract's)."""
    own = tokens(sentence)
    total = sum(own.values())
    return total > 0 and sum(min(n, abstract[w]) for w, n in own.items()) / total >= 0.8


def lead(chunks: list, n: int = 3, at_least: int = 0) -> list[str]:
    """The first ``n`` sentences of six or more words; with ``at_least``, as many as it
    takes to reach that many words (a baseline as long as the overview)."""
    from localcrag.textutil import sentences, words

    out: list[str] = []
    for c in chunks:
        for s in sentences(c.text):
            text = " ".join(s.split())
            if len(words(text)) >= 6 and text not in out:
                out.append(text)
                if (len(out) >= n and not at_least) or (
                    at_least and sum(tokens(t).total() for t in out) >= at_least
                ):
                    return out
    return out


def main() -> int:
    home = ROOT / ".cache" / "overview-home"
    os.environ["LOCALCRAG_HOME"] = str(home)
    from localcrag.ingest.library import Library
    from localcrag.ingest.overview import make
    from localcrag.settings import Settings
    from localcrag.textutil import sentences

    folder = ROOT / ".cache" / "overview"
    items = json.loads((ROOT / "tests" / "data" / "overview" / "abstracts.json").read_text("utf-8"))
    missing = [it["file"] for it in items if not (folder / it["file"]).exists()]
    if missing:
        print(f"missing {', '.join(missing)}: run python scripts/fetch_overview_set.py first")
        return 1
    lib = Library(Settings.load())
    report = lib.ingest([folder])
    if report.failed:
        print("failed to index:", report.failed)
        return 1
    rows = []
    for it in items:
        source = str((folder / it["file"]).resolve())
        abstract = it["abstract"]
        overview = lib.overview(source)
        assert overview is not None, source
        chunks, vectors, pages = lib.store.document(source)
        ref = tokens(abstract)
        kept = []
        for c in chunks:
            text = " ".join(s for s in sentences(c.text) if not in_abstract(s, ref))
            kept.append(replace(c, text=text or "."))
        withheld = make(
            source, overview.doc_hash, kept, lib.embedder.embed([c.text for c in kept]), pages
        )
        said = " ".join(q.text for q in overview.sentences)
        said_w = " ".join(q.text for q in withheld.sentences)
        long = lead(kept, at_least=tokens(said_w).total())
        rows.append(
            (
                it["file"][:28],
                tokens(abstract).total(),
                overview.summary or "central",
                recall(abstract, said),
                recall(abstract, " ".join(lead(chunks))),
                recall(abstract, said_w),
                recall(abstract, " ".join(lead(kept))),
                recall(abstract, " ".join(long)),
                tokens(said_w).total(),
                tokens(" ".join(lead(kept))).total(),
            )
        )
    head = (
        "file", "abstract words", "overview from", "overview R1", "lead-3 R1",
        "withheld: overview R1", "withheld: lead-3 R1", "withheld: lead, as many words R1",
        "words (overview / lead-3, withheld)",
    )  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(
            f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.2f} | {r[6]:.2f} "
            f"| {r[7]:.2f} | {r[8]} / {r[9]} |"
        )
    n = len(rows)
    mean = [sum(r[i] for r in rows) / n for i in (3, 4, 5, 6, 7)]
    print(f"| mean of {n} | | | " + " | ".join(f"{m:.2f}" for m in mean) + " | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
