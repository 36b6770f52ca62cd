#!/usr/bin/env python
"""Answer-level reading with the bundled LLMs: does the passage *hold* the answer? (issue 12)

The fusion grader measures topic; question likelihood (qlik / UPR) also measured topic.
This probe lets a bundled LLM *read*: it writes a short greedy answer ``a`` to
"passage + question" and asks how much the passage made that answer likely.

  S1 pmi     mean over a's tokens of log P(a | passage, q) - log P(a | q alone)
  S1 pmi_new the same over the answer's tokens that are not question words or stop words
             (small models restate the question before answering)
  S1 conf    mean log P(a | passage, q) (the greedy answer's own confidence)
  S2 copy    share of a's content words (textutil.content_words) found in the passage
  S2 newent  a holds a name / number (capitalised or digit word) not in the question but in the passage
  S3 abstain mean log P(a | p, q, option) - mean log P("not stated" | p, q, option), the prompt
             offering "not stated" as an answer (one general wording, fixed before any run)

Pairs (positives first):
  SQuAD small.json, per article: (question, own paragraph) pos; the same paragraph with the
  sentences holding the answer span cut (eval/ablation.py) "abl"; (unanswerable question,
  its paragraph) "near".
  anthropic-docs: (question, its best-fused gold chunk, among the gold chunks retrieved in
  the top 5 when there are any) pos; (question, the best-fused chunk of the top 5 retrieved
  with every gold chunk withheld: LanceStore.search(withhold=)) "wh".
Every pair also gets the default fusion grader's score (the eval index's statistics).

Then per signal and model: AUC per pair kind, ms per pair (2 threads), and each signal
combined with the fusion score by a balanced logistic fitted on SQuAD article A only,
reported on article B and anthropic-docs (and the other direction); the fusion alone
beside it. "anthropic 5-fold" rows fit on anthropic-docs itself (out-of-fold, same
corpus): a ceiling, never a shippable figure.

Usage (results cached under /tmp/reader_probe; 1 thread per model ran best on the busy 2 cores):
  LOCALCRAG_HOME=/tmp/reader-home PYTHONPATH=. nice -n 10 python scripts/reader_probe.py \
      [--models gemma smol] [--per-article 25 --near 12 --anthropic 50] [--threads 1]
  (run one model per process to read both side by side; then a run with both models,
  all cached, prints the table; --time N times N fresh reads)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SEED = 0
K = 5
CACHE = Path("/tmp/reader_probe")
ARTICLES = ("Normans", "Computational_complexity_theory")
MODELS = {"gemma": "gemma-3-270m-q4_k_m.gguf", "smol": "SmolLM2-135M-Instruct.Q4_1.gguf"}
PROMPT_VERSION = "v1"
ASK = "Answer the question in a few words, using the passage."
OPTION = ' If the passage does not say, answer "not stated".'
ABSTAIN = "not stated"
MAX_ANSWER = 16


# --- pairs ------------------------------------------------------------------------------

def _open(path: Path):  # noqa: ANN202
    from localcrag.crag.pipeline import Pipeline
    from localcrag.crag.retrieve import Retriever
    from localcrag.eval.adapters import load_dataset
    from localcrag.eval.runner import _ingest, eval_settings, workdir_for
    from localcrag.eval.withhold import chunk_ids_by_unit
    from localcrag.settings import Settings

    ds = load_dataset(path)
    wd = workdir_for(ds)
    pipe = Pipeline(eval_settings(Settings(**{**Settings.load().model_dump(), "grader": "fusion",
                                              "grader_model": None}), wd / "index", True))
    _ingest(pipe, ds, wd, lambda p: None)
    return ds, pipe, Retriever(pipe.settings, pipe.library), chunk_ids_by_unit(pipe, ds)


def squad_pairs(shared: Path, per_article: int, near: int) -> list[dict]:
    from localcrag.eval.ablation import ablate

    ds, pipe, _, _ = _open(shared / "squad2-dev-subset" / "small.json")
    fuse = pipe.grader.score_texts
    rng = random.Random(SEED)
    out = []
    for art in ARTICLES:
        qs = [q for q in ds.questions if q.context_id and ds.passages[q.context_id][0] == art]
        ans = [q for q in qs if q.answerable]
        rng.shuffle(ans)
        taken = 0
        for q in ans:
            text = ds.passages[q.context_id][1]
            cut = ablate(text, q.answer_spans)
            if cut is None or any(a.lower() in cut.lower() for a in q.answers):
                continue
            for kind, t in (("pos", text), ("abl", cut)):
                out.append({"set": art, "qid": q.qid, "q": q.question, "text": t, "kind": kind,
                            "fusion": fuse(q.question, [t])[0]})
            taken += 1
            if taken == per_article:
                break
        un = [q for q in qs if not q.answerable]
        for q in rng.sample(un, min(near, len(un))):
            t = ds.passages[q.context_id][1]
            out.append({"set": art, "qid": q.qid, "q": q.question, "text": t, "kind": "near",
                        "fusion": fuse(q.question, [t])[0]})
    return out


def anthropic_pairs(shared: Path, n: int) -> list[dict]:
    ds, pipe, retriever, by_unit = _open(shared / "anthropic-docs")
    text_of = pipe.library.store.columns(["chunk_id", "text"])
    text_by_id = dict(zip(text_of["chunk_id"], text_of["text"]))
    qs = [q for q in ds.questions if q.answerable and any(by_unit.get(u) for u in q.gold)]
    qs = random.Random(SEED).sample(qs, min(n, len(qs)))
    out = []
    for q in qs:
        gold = sorted({c for u in q.gold for c in by_unit.get(u, ())})
        full = [h.chunk for h in retriever.search(q.question, k=K)]
        cands = [c.chunk_id for c in full if c.chunk_id in gold] or gold
        texts = [text_by_id[c] for c in cands]
        sc = pipe.grader.score_texts(q.question, texts)
        i = int(np.argmax(sc))
        out.append({"set": "anthropic", "qid": q.qid, "q": q.question, "text": texts[i], "kind": "pos",
                    "fusion": sc[i], "gold_in_top5": cands is not gold})
        off = [h.chunk.text for h in retriever.search(q.question, k=K, withhold=frozenset(gold))]
        sc = pipe.grader.score_texts(q.question, off)
        i = int(np.argmax(sc))
        out.append({"set": "anthropic", "qid": q.qid, "q": q.question, "text": off[i], "kind": "wh",
                    "fusion": sc[i]})
    return out


# --- reading ----------------------------------------------------------------------------

class Reader:
    """Greedy answer + the three signals' log-probabilities, one passage decode per pair."""

    def __init__(self, llm) -> None:  # noqa: ANN001
        import llama_cpp

        self.llm, self.c = llm, llama_cpp
        self.sc = llm._scorer()
        self.chat = llm.has_chat_template
        if self.chat:
            mark = "\x00MARK\x00"
            self.head, self.foot = llm.chat_prompt([{"role": "user", "content": mark}]).split(mark)
        else:
            self.head, self.foot = "", "\nAnswer:"
        self.vocab = llama_cpp.llama_model_get_vocab(llm._llm.model)

    def _tok(self, text: str, special: bool = False) -> list[int]:
        return self.llm.tokenize(text, add_bos=False, special=special)

    def _rm(self, keep: int) -> None:
        mem = self.c.llama_get_memory(self.llm._llm.ctx)
        self.c.llama_memory_seq_rm(mem, 0, keep, -1)

    def _lp_of(self, start: int, first_row: np.ndarray, toks: list[int]) -> list[float]:
        """log P(each of toks) given the KV up to ``start`` and the logits row predicting toks[0]."""
        from localcrag.llm.scoring import _log_softmax_at

        rows = {0: first_row}
        if len(toks) > 1:
            got = self.sc._decode(toks[:-1], start, set(range(len(toks) - 1)))
            rows.update({j + 1: r for j, r in got.items()})
        return [_log_softmax_at(rows[j], t) for j, t in enumerate(toks)]

    def _next(self, row: np.ndarray, first: bool) -> int:
        """Greedy token; the first one may not end the answer (a base model often starts
        with a line break after "Answer:"): the best token that is text."""
        if not first:
            return int(np.argmax(row))
        for tok in np.argsort(row)[::-1][:20]:
            tok = int(tok)
            if not self.c.llama_vocab_is_eog(self.vocab, tok) and llm_text(self.llm, tok).strip():
                return tok
        return int(np.argmax(row))

    def read(self, question: str, passage: str) -> dict:
        from localcrag.llm.scoring import _log_softmax_at

        llm, sc = self.llm, self.sc
        bos = [llm._bos] if llm._add_bos else []
        q = question.strip()
        pre = bos + self._tok(self.head, True) + self._tok(f"Passage: {passage.strip()}\n\nQuestion: {q}\n")
        tail_a = self._tok(ASK, True) + self._tok(self.foot, True)
        tail_b = self._tok(ASK + OPTION, True) + self._tok(self.foot, True)
        abst = self._tok(ABSTAIN if self.chat else " " + ABSTAIN)
        t0 = time.perf_counter()
        with llm.lock:
            llm._llm.reset()
            sc._clear_kv()
            n = len(pre)
            sc._decode(pre, 0, set())
            row = sc._decode(tail_a, n, {len(tail_a) - 1})[len(tail_a) - 1]
            pos, answer, lp_pq = n + len(tail_a), [], []
            for _ in range(MAX_ANSWER):
                tok = self._next(row, first=not answer)
                if self.c.llama_vocab_is_eog(self.vocab, tok) or "\n" in llm.detokenize([tok]):
                    break
                answer.append(tok)
                lp_pq.append(_log_softmax_at(row, tok))
                row = sc._decode([tok], pos, {0})[0]
                pos += 1
            self._rm(n)
            row_b = sc._decode(tail_b, n, {len(tail_b) - 1})[len(tail_b) - 1]
            nb = n + len(tail_b)
            lp_abs = sum(self._lp_of(nb, row_b, abst))
            self._rm(nb)
            lp_ab = sum(self._lp_of(nb, row_b, answer)) if answer else 0.0
            prior = bos + self._tok(self.head, True) + self._tok(f"Question: {q}\n") + tail_a
            sc._clear_kv()
            if answer:
                row0 = sc._decode(prior, 0, {len(prior) - 1})[len(prior) - 1]
                lp_q = self._lp_of(len(prior), row0, answer)
            else:
                lp_q = []
            sc._clear_kv()
        return {"answer": llm.detokenize(answer).strip(), "n": len(answer), "lp_pq": sum(lp_pq),
                "lp_q": sum(lp_q), "tok_pq": lp_pq, "tok_q": lp_q, "pieces": [llm.detokenize([t]) for t in answer],
                "lp_ab": lp_ab, "lp_abs": lp_abs, "n_abs": len(abst),
                "ms": round((time.perf_counter() - t0) * 1000, 1)}


def llm_text(llm, tok: int) -> str:  # noqa: ANN001
    return llm.detokenize([tok])


def new_token_mask(pieces: list[str], question: str) -> list[bool]:
    """Which answer tokens belong to a content word the question does not have: the part of
    an answer that is not an echo of the question (small models restate it first)."""
    from localcrag.textutil.words import STOPWORDS, WORD, words

    text = "".join(pieces)
    qw = set(words(question))
    spans = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(text)]
    out, at = [], 0
    for piece in pieces:
        lo, hi = at, at + len(piece)
        at = hi
        out.append(any(a < hi and lo < b and w not in qw and w not in STOPWORDS for a, b, w in spans))
    return out


def signals(r: dict, question: str, passage: str) -> dict[str, float]:
    from localcrag.textutil.words import WORD, content_words, words

    n = max(1, r["n"])
    a = r["answer"]
    cw = content_words(a)
    pw = content_words(passage)
    qw, psw = set(words(question)), set(words(passage))
    ent = [w.lower() for w in (m.group() for m in WORD.finditer(a)) if w[0].isupper() or any(ch.isdigit() for ch in w)]
    extra = {}
    if "tok_pq" in r:  # per-token log-probs recorded (not in the first smol run's cache)
        d = [a_ - b_ for a_, b_, new in zip(r["tok_pq"], r["tok_q"], new_token_mask(r["pieces"], question)) if new]
        extra["pmi_new"] = float(np.mean(d)) if d else 0.0
    return extra | {"pmi": (r["lp_pq"] - r["lp_q"]) / n if r["n"] else 0.0,
            "conf": r["lp_pq"] / n if r["n"] else -20.0,
            "copy": len(cw & pw) / len(cw) if cw else 0.0,
            "newent": float(any(e not in qw and e in psw for e in ent)),
            "abstain": (r["lp_ab"] / n if r["n"] else -20.0) - r["lp_abs"] / max(1, r["n_abs"])}


def read_all(pairs: list[dict], model: str, models_dir: Path, threads: int, log) -> list[dict]:  # noqa: ANN001
    from localcrag.llm.gguf import load_llm

    path = CACHE / f"read_{model}_{PROMPT_VERSION}.jsonl"
    done: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done[row["key"]] = row
    reader = None
    with path.open("a", encoding="utf-8") as fh:
        for i, p in enumerate(pairs):
            key = hashlib.sha1(f"{model}|{p['q']}|{p['text']}".encode()).hexdigest()
            if key not in done:
                if reader is None:
                    reader = Reader(load_llm(models_dir / MODELS[model], n_ctx=2048, threads=threads))
                done[key] = {"key": key, **reader.read(p["q"], p["text"])}
                fh.write(json.dumps(done[key]) + "\n")
                fh.flush()
            if i % 50 == 0:
                log(f"{model}: {i}/{len(pairs)}")
    return [done[hashlib.sha1(f"{model}|{p['q']}|{p['text']}".encode()).hexdigest()] for p in pairs]


# --- analysis ---------------------------------------------------------------------------

def auc(pos, neg) -> float | None:  # noqa: ANN001
    from localcrag.eval.metrics import roc_auc

    v = roc_auc(list(pos), list(neg))
    return None if v is None else round(float(v), 3)


def logit(p: float) -> float:
    p = min(1 - 1e-4, max(1e-4, p))
    return math.log(p / (1 - p))


def fit_logistic(X: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-2):  # noqa: ANN201
    """Weighted L2 logistic by Newton on standardised features; returns a scoring function."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.c_[np.ones(len(X)), (X - mu) / sd]
    b = np.zeros(Z.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-Z @ b))
        g = Z.T @ (w * (p - y)) + l2 * np.r_[0, b[1:]]
        H = (Z * (w * p * (1 - p))[:, None]).T @ Z + l2 * np.diag(np.r_[0, np.ones(len(b) - 1)])
        b -= np.linalg.solve(H, g)
    return lambda Xn: np.c_[np.ones(len(Xn)), (Xn - mu) / sd] @ b, b


def balanced(kinds: list[str]) -> np.ndarray:
    """Positives weigh as much as all negatives; each negative kind the same."""
    neg = sorted({k for k in kinds if k != "pos"})
    cnt = {k: kinds.count(k) for k in set(kinds)}
    return np.array([0.5 / cnt[k] if k == "pos" else 0.5 / (len(neg) * cnt[k]) for k in kinds])


def matrix(rows: list[dict], feats: tuple[str, ...]) -> np.ndarray:
    return np.array([[logit(r["fusion"]) if f == "fusion" else r["sig"][f] for f in feats] for r in rows], float)


def report_aucs(rows: list[dict], score) -> dict:  # noqa: ANN001
    out = {}
    for s, kinds in (("Normans", ("abl", "near")), ("Computational_complexity_theory", ("abl", "near")),
                     ("anthropic", ("wh",))):
        sel = [r for r in rows if r["set"] == s]
        for k in kinds:
            out[f"{s[:8]}:{k}"] = auc([score(r) for r in sel if r["kind"] == "pos"],
                                      [score(r) for r in sel if r["kind"] == k])
    return out


def paired_ci(rows: list[dict], score: np.ndarray, n: int = 1000) -> list[float]:
    """95% interval of AUC(score) - AUC(fusion alone) on the same pairs, resampling questions."""
    by_q: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_q.setdefault(r["qid"], []).append(i)
    qids = sorted(by_q)
    fus = np.array([r["fusion"] for r in rows])
    pos = np.array([r["kind"] == "pos" for r in rows])
    rng = np.random.default_rng(SEED)
    gains = []
    for _ in range(n):
        idx = [i for q in rng.choice(qids, len(qids)) for i in by_q[q]]
        p, sc, fu = pos[idx], score[idx], fus[idx]
        a, b = auc(sc[p], sc[~p]), auc(fu[p], fu[~p])
        if a is not None and b is not None:
            gains.append(a - b)
    return [round(float(np.percentile(gains, 2.5)), 3), round(float(np.percentile(gains, 97.5)), 3)]


def combos(rows: list[dict], feats: tuple[str, ...]) -> dict:
    """Fit on one SQuAD article (pos vs abl + near), report on the other and on anthropic;
    plus a 5-fold out-of-fold fit on anthropic itself (a same-corpus ceiling)."""
    out = {}
    for train in ARTICLES:
        tr = [r for r in rows if r["set"] == train]
        f, _ = fit_logistic(matrix(tr, feats), np.array([r["kind"] == "pos" for r in tr], float),
                            balanced([r["kind"] for r in tr]))
        test = next(a for a in ARTICLES if a != train)
        for s, k in ((test, "abl"), (test, "near"), ("anthropic", "wh")):
            sel = [r for r in rows if r["set"] == s]
            sc = f(matrix(sel, feats))
            out[f"{train[:8]}->{s[:8]}:{k}"] = auc([v for v, r in zip(sc, sel) if r["kind"] == "pos"],
                                                  [v for v, r in zip(sc, sel) if r["kind"] == k])
            if s == "anthropic" and feats != ("fusion",):
                out[f"{train[:8]}->anthropi: gain over fusion, 95% CI"] = paired_ci(sel, sc)
    an = [r for r in rows if r["set"] == "anthropic"]
    qids = sorted({r["qid"] for r in an})
    fold = {q: i % 5 for i, q in enumerate(random.Random(SEED).sample(qids, len(qids)))}
    sc = np.zeros(len(an))
    for k in range(5):
        tr = [r for r in an if fold[r["qid"]] != k]
        te = [i for i, r in enumerate(an) if fold[r["qid"]] == k]
        f, _ = fit_logistic(matrix(tr, feats), np.array([r["kind"] == "pos" for r in tr], float),
                            balanced([r["kind"] for r in tr]))
        sc[te] = f(matrix([an[i] for i in te], feats))
    out["anthropic 5-fold (same corpus)"] = auc([v for v, r in zip(sc, an) if r["kind"] == "pos"],
                                                [v for v, r in zip(sc, an) if r["kind"] == "wh"])
    return out


def timing(pairs: list[dict], models: list[str], threads: int) -> dict:
    """ms per pair read afresh, with the load average beside it (the machine is shared)."""
    import os

    from localcrag.llm.gguf import load_llm
    from localcrag.settings import Settings

    out = {"threads": threads, "load_before": os.getloadavg()[0], "pairs": len(pairs)}
    for model in models:
        reader = Reader(load_llm(Settings.load().models_dir / MODELS[model], n_ctx=2048, threads=threads))
        reader.read(pairs[0]["q"], pairs[0]["text"])  # warm-up
        ms = [reader.read(p["q"], p["text"])["ms"] for p in pairs]
        out[model] = {"ms_median": float(np.median(ms)), "ms_mean": round(float(np.mean(ms)), 1)}
    out["load_after"] = os.getloadavg()[0]
    return out


def table(results: dict) -> str:
    """The markdown table of docs/evaluator.md: per signal, AUC alone and + fusion held out."""
    f = results["fusion alone"]
    lines = ["| model | signal | alone: N abl / C abl / N near / C near / anthropic wh | + fusion, fit N: C abl / C near / "
             "anthropic | + fusion, fit C: N abl / N near / anthropic | anthropic gain CI (fit N; fit C) | "
             "anthropic 5-fold (same corpus) |", "|---|---|---|---|---|---|---|"]

    def row(model: str, name: str, a: dict, c: dict) -> str:
        alone = " / ".join(str(a.get(k)) for k in ("Normans:abl", "Computat:abl", "Normans:near",
                                                   "Computat:near", "anthropi:wh"))
        fn = " / ".join(str(c[k]) for k in ("Normans->Computat:abl", "Normans->Computat:near", "Normans->anthropi:wh"))
        fc = " / ".join(str(c[k]) for k in ("Computat->Normans:abl", "Computat->Normans:near", "Computat->anthropi:wh"))
        ci = "; ".join(str(c.get(f"{t}->anthropi: gain over fusion, 95% CI", "–")) for t in ("Normans", "Computat"))
        return f"| {model} | {name} | {alone} | {fn} | {fc} | {ci} | {c['anthropic 5-fold (same corpus)']} |"

    lines.append(row("–", "fusion alone", f["auc"], f["combined"]))
    for model, res in results.items():
        if model == "fusion alone":
            continue
        for s, v in res.items():
            if isinstance(v, dict) and "auc" in v:
                lines.append(row(model, s, v["auc"], v["combined with fusion"]))
        lines.append(row(model, "all signals", {}, res["all signals + fusion"]))
        lines.append(f"| {model} | ms per pair (median, cached run) | {res['ms_per_pair_median']} | | | | |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--per-article", type=int, default=25)
    ap.add_argument("--near", type=int, default=12)
    ap.add_argument("--anthropic", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=CACHE / "results.json")
    ap.add_argument("--time", type=int, default=0, metavar="N",
                    help="only time N anthropic pairs read afresh (no cache) per model at --threads")
    args = ap.parse_args()

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    from localcrag.settings import Settings

    CACHE.mkdir(parents=True, exist_ok=True)
    pairs_file = CACHE / f"pairs_{args.per_article}_{args.near}_{args.anthropic}.json"
    if pairs_file.exists():
        pairs = json.loads(pairs_file.read_text(encoding="utf-8"))
    else:
        # anthropic first: the pairs that matter most are read first (the cache makes runs resumable)
        pairs = anthropic_pairs(args.shared, args.anthropic) + squad_pairs(args.shared, args.per_article, args.near)
        pairs_file.write_text(json.dumps(pairs), encoding="utf-8")
    log(f"{len(pairs)} pairs: " + ", ".join(f"{s}/{k} {sum(p['set'] == s and p['kind'] == k for p in pairs)}"
                                          for s in (*ARTICLES, "anthropic") for k in ("pos", "abl", "near", "wh")
                                          if any(p['set'] == s and p['kind'] == k for p in pairs)))
    if args.time:
        print(json.dumps(timing(pairs[:args.time], args.models, args.threads), indent=2))
        return 0
    results: dict = {"fusion alone": {"auc": report_aucs(pairs, lambda r: r["fusion"]),
                                      "combined": combos([{**p, "sig": {}} for p in pairs], ("fusion",))}}
    models_dir = Settings.load().models_dir
    for model in args.models:
        reads = read_all(pairs, model, models_dir, args.threads, log)
        rows = [{**p, "read": r, "sig": signals(r, p["q"], p["text"])} for p, r in zip(pairs, reads)]
        res: dict = {"ms_per_pair_median": float(np.median([r["ms"] for r in reads])),
                     "ms_per_pair_mean": round(float(np.mean([r["ms"] for r in reads])), 1),
                     "answer_tokens_mean": round(float(np.mean([r["n"] for r in reads])), 2),
                     "abstained_greedy": round(float(np.mean([r["answer"].lower().startswith("not stated")
                                                              for r in reads])), 3)}
        for s in list(rows[0]["sig"]):
            res[s] = {"auc": report_aucs(rows, lambda r, s=s: r["sig"][s]),
                      "combined with fusion": combos(rows, ("fusion", s))}
        res["all signals + fusion"] = combos(rows, ("fusion",) + tuple(rows[0]["sig"]))
        results[model] = res
        (CACHE / f"rows_{model}.json").write_text(json.dumps(
            [{k: r[k] for k in ("set", "qid", "q", "kind", "fusion", "read", "sig")} for r in rows], indent=1))
    args.out.write_text(json.dumps(results, indent=2, default=float), encoding="utf-8")
    print(table(results))
    log(f"every figure: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
