"""Compare the sentence splitter (textutil.sentences) with pysbd, syntok and blingfire.

    pip install --target /tmp/splitters pysbd syntok blingfire      # not dependencies
    PYTHONPATH=.:/tmp/splitters python scripts/sentence_splitters.py --data ../shared/data

Texts: the pages of every PDF under DATA (parsed by localcrag), the SQuAD contexts of
squad2-dev-subset/small.json and the anthropic-docs chunks. For each splitter: sentences and
sentences/s; then the *sites* where a sentence ends (ends within 2 characters merged) and
where the splitters disagree. A seeded sample of disagreement sites was judged by reading
them (scripts/sentence_labels.json: y = a sentence ends here, n = it does not, skip = code,
markup, tables or formulas, where no sentence boundary is defined); a site all four agree on
is counted right. Wrong splits per 1,000 sentences = a splitter's errors on the judged sample,
scaled to all disagreement sites, over the estimated number of sentences. ``--show`` prints
the sample with its context, to judge it again. PROBES are general English cases (not from
any data set): abbreviations, initials, decimals, versions, lists, quotes, code.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from localcrag.ingest.parse import parse_document  # noqa: E402
from localcrag.textutil import split_sentences  # noqa: E402

LABELS = REPO / "scripts" / "sentence_labels.json"
SAMPLE = {"pdf": 40, "squad": 100, "anthropic": 60}  # disagreement sites judged per corpus
SEED = 7
Spans = list[tuple[int, int]]

# (text, the sentences it holds): general English and technical writing
PROBES: list[tuple[str, list[str]]] = [
    ("Dr. Smith met Prof. Jones. They talked.", ["Dr. Smith met Prof. Jones.", "They talked."]),
    (
        "It costs $3.50 per unit. Prices rose 2.5% in 2023.",
        ["It costs $3.50 per unit.", "Prices rose 2.5% in 2023."],
    ),
    (
        "Install version 2.1.3 today. It fixes bugs.",
        ["Install version 2.1.3 today.", "It fixes bugs."],
    ),
    (
        "See Fig. 3 and Eq. 2 for details. The rest follows.",
        ["See Fig. 3 and Eq. 2 for details.", "The rest follows."],
    ),
    (
        "Use a fast model, e.g. a small one. It answers quickly.",
        ["Use a fast model, e.g. a small one.", "It answers quickly."],
    ),
    ("J. R. R. Tolkien wrote it. It sold well.", ["J. R. R. Tolkien wrote it.", "It sold well."]),
    (
        "The time is a function of n. Since n grows, so does it.",
        ["The time is a function of n.", "Since n grows, so does it."],
    ),
    ("Steps:\n1. Open the file.\n2. Save it.", ["Steps:", "1. Open the file.", "2. Save it."]),
    ("- first item\n- second item", ["- first item", "- second item"]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("Is it big? Yes! It is huge.", ["Is it big?", "Yes!", "It is huge."]),
    (
        "Call client.messages.create() first. Then stream.",
        ["Call client.messages.create() first.", "Then stream."],
    ),
    (
        "Set max_tokens=1024, temperature=0. The reply is short.",
        ["Set max_tokens=1024, temperature=0.", "The reply is short."],
    ),
    ("Introduction\nThe model is small.", ["Introduction", "The model is small."]),
    ("The trans-\nformer is fast. It wins.", ["The trans-\nformer is fast.", "It wins."]),
    ("It rose 10 vs. 5 last year. Good.", ["It rose 10 vs. 5 last year.", "Good."]),
    ("Visit www.example.com today. It is free.", ["Visit www.example.com today.", "It is free."]),
    ("The U.S. Army grew. It hired more.", ["The U.S. Army grew.", "It hired more."]),
    (
        "Results improved (see Sec. 4). We discuss why.",
        ["Results improved (see Sec. 4).", "We discuss why."],
    ),
    ("No. 5 is the best. No other is close.", ["No. 5 is the best.", "No other is close."]),
]


def _ours(text: str) -> Spans:
    return split_sentences(text)


def splitters() -> dict[str, Callable[[str], Spans]]:
    """Ours and each library that imports."""
    out: dict[str, Callable[[str], Spans]] = {"ours": _ours}
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
        out["pysbd"] = lambda t: [(s.start, s.end) for s in seg.segment(t)]
    except ImportError:
        print("pysbd: not installed", file=sys.stderr)
    try:
        import syntok.segmenter as syn

        def _syntok(t: str) -> Spans:
            return [
                (s[0].offset, s[-1].offset + len(s[-1].value)) for p in syn.analyze(t) for s in p
            ]

        out["syntok"] = _syntok
    except ImportError:
        print("syntok: not installed", file=sys.stderr)
    try:
        import blingfire

        out["blingfire"] = lambda t: (
            list(blingfire.text_to_sentences_and_offsets(t)[1]) if t.strip() else []
        )
    except ImportError:
        print("blingfire: not installed", file=sys.stderr)
    return out


def corpora(data: Path) -> dict[str, list[str]]:
    pdfs = [pg.text for p in sorted(data.glob("*/*.pdf")) for pg in parse_document(p).pages]
    squad = json.loads((data / "squad2-dev-subset" / "small.json").read_text())
    docs = json.loads((data / "anthropic-docs" / "anthropic_docs.json").read_text())
    return {
        "pdf": pdfs,
        "squad": [p["context"] for a in squad["data"] for p in a["paragraphs"]],
        "anthropic": [c["text"] for c in docs],
    }


def ends(text: str, spans: Spans) -> set[int]:
    """Where sentences end (after the last non-blank), the text's own end left out."""
    out = set()
    for a, b in spans:
        b = min(b, len(text))
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.add(b)
    out.discard(len(text.rstrip()))
    return out


def sites(text: str, by: dict[str, set[int]]) -> list[tuple[int, int, list[str]]]:
    """(first, last offset, splitters that end a sentence there), ends within 2 chars merged."""
    groups: list[list[int]] = []
    for p in sorted(set().union(*by.values())):
        if groups and p - groups[-1][-1] <= 2:
            groups[-1].append(p)
        else:
            groups.append([p])
    return [(g[0], g[-1], [n for n, e in by.items() if e & set(g)]) for g in groups]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--show", action="store_true", help="print the judged sample in context")
    args = ap.parse_args()
    split = splitters()
    texts = corpora(args.data)
    report: dict[str, dict] = {"speed": {}, "corpora": {}, "probes": {}}
    all_texts = [t for ts in texts.values() for t in ts]
    for name, f in split.items():  # best of two passes over all texts
        best = min(_timed(f, all_texts) for _ in range(2))
        n = sum(len(f(t)) for t in all_texts)
        report["speed"][name] = {
            "sentences": n,
            "seconds": round(best, 3),
            "per_s": round(n / best),
        }
    labels = json.loads(LABELS.read_text()) if LABELS.exists() else {}
    rnd = random.Random(SEED)
    for corpus, ts in texts.items():
        found = []
        for i, t in enumerate(ts):
            by = {n: ends(t, f(t)) for n, f in split.items()}
            found += [(i, a, b, has) for a, b, has in sites(t, by)]
        split_at = [s for s in found if len(s[3]) < len(split)]
        sample = sorted(rnd.sample(split_at, min(SAMPLE[corpus], len(split_at))))
        judged = labels.get(corpus, {})
        errors = dict.fromkeys(split, 0)
        counted = yes = 0
        for k, (i, a, b, has) in enumerate(sample):
            verdict = judged.get(str(k), {}).get("verdict", "?")
            if args.show:
                t = ts[i]
                ctx = (t[max(0, a - 90) : a] + "‖" + t[a : b + 60]).replace("\n", "⏎")
                print(f"{corpus} {k} {verdict} [{','.join(has)}] {ctx}")
            if verdict not in ("y", "n"):
                continue
            counted += 1
            yes += verdict == "y"
            for name in split:
                errors[name] += (name in has) != (verdict == "y")
        agreed = len(found) - len(split_at)
        scale = len(split_at) / len(sample) if sample else 0.0
        sentences = agreed + len(ts) + yes * scale  # agreed ends + text ends + judged ends
        report["corpora"][corpus] = {
            "texts": len(ts),
            "sites": len(found),
            "disagreements": len(split_at),
            "judged": counted,
            "skipped": len(sample) - counted,
            "sentences_estimated": round(sentences),
            "errors_in_sample": errors,
            "wrong_per_1000": {
                n: round(1000 * e * scale / sentences, 1) for n, e in errors.items()
            },
        }
    rows = report["corpora"].values()
    total = sum(r["sentences_estimated"] for r in rows)
    report["all"] = {
        "sentences_estimated": total,
        "wrong_per_1000": {
            n: round(
                sum(r["wrong_per_1000"][n] * r["sentences_estimated"] for r in rows) / total, 1
            )
            for n in split
        },
    }
    for name, f in split.items():
        wrong = [t for t, want in PROBES if [t[a:b].strip() for a, b in f(t)] != want]
        report["probes"][name] = {
            "right": len(PROBES) - len(wrong),
            "of": len(PROBES),
            "wrong": wrong,
        }
    print(json.dumps(report, indent=1, ensure_ascii=False))


def _timed(f: Callable[[str], Spans], texts: list[str]) -> float:
    t0 = time.perf_counter()
    for t in texts:
        f(t)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
