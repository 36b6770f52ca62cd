"""Experiment (issue 12): a small trained interaction module over frozen MiniLM token states.

    python scripts/train_interact.py --train Normans --test Computational_complexity_theory

The question and the passage are encoded separately by the provisioned int8 ONNX
all-MiniLM-L6-v2 (frozen; the states the align grader reads). A module of ~0.2M
parameters reads them *together*: each question token soft-aligns to the passage
(learned projections + the raw cosine), a learned gate says which question tokens must be
matched, and a second head looks for a passage token that could be the answer (not a
question word, attended by the question's summary). It trains in minutes because the
transformer never runs backwards. Pair-level AUCs per negative kind are reported on the
*other* article's pairs (held out), beside the fusion's signals through the same recipe.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from train_align import corpus, paragraph_examples  # noqa: E402
from train_evaluator import SEED, build, load_squad  # noqa: E402

from localcrag.crag.graders.align_features import TokenEncoder  # noqa: E402
from localcrag.ingest.embed_onnx import onnx_path_for  # noqa: E402
from localcrag.textutil import STOPWORDS, terms  # noqa: E402

MODELS = REPO / "models"


def examples_for(article: str, per_doc: int, synthetic: bool) -> list:
    args = argparse.Namespace(train=[article], per_doc=per_doc if synthetic else 0, squad_repeat=1, max_pairs=0)
    ex = build(args)
    paras, qs = load_squad([article])
    ex += paragraph_examples(paras, qs, random.Random(SEED + 1))
    return ex, paras


def featurise(enc: TokenEncoder, stats, examples) -> list[dict]:
    """Per pair: question states + per-token idf / content flag; passage states + a flag
    for tokens whose word is a question word."""
    qs = enc.encode(sorted({e.question for e in examples}))
    qmap = {q.text: q for q in qs}
    ps = enc.encode(sorted({e.passage for e in examples}))
    pmap = {p.text: p for p in ps}
    out = []
    for e in examples:
        q, p = qmap[e.question], pmap[e.passage]
        qwords = {w.lower() for w in q.words}
        content = np.array([float(any(c.isalnum() for c in w) and w.lower() not in STOPWORDS) for w in q.words],
                           np.float32)
        idf = np.array([stats.idf(t[0]) if (t := terms(w)) else 0.0 for w in q.words], np.float32)
        inq = np.array([float(w.lower() in qwords) for w in p.words], np.float32)
        out.append({"q": q.vectors, "qf": np.stack([content, idf / 5.0], 1), "p": p.vectors, "pf": inq[:, None],
                    "y": float(e.label), "kind": e.kind})
    return out


def make_net(hidden: int = 64):
    import torch
    from torch import nn

    class Interact(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            d = 384
            self.pq, self.pp = nn.Linear(d, hidden), nn.Linear(d, hidden)
            self.alpha = nn.Parameter(torch.tensor(10.0))
            self.match = nn.Sequential(nn.Linear(3 * hidden + 1, hidden), nn.Tanh(), nn.Linear(hidden, 1))
            self.gate = nn.Sequential(nn.Linear(hidden + 2, hidden), nn.Tanh(), nn.Linear(hidden, 1))
            self.ans = nn.Sequential(nn.Linear(3 * hidden + 2, hidden), nn.Tanh(), nn.Linear(hidden, 1))
            self.out = nn.Linear(3, 1)

        def forward(self, q, qf, qm, p, pf, pm):  # noqa: ANN001, ANN201
            # q: B x m x d, qf: B x m x 2, qm: B x m; p: B x n x d, pf: B x n x 1, pm: B x n
            cos = torch.einsum("bmd,bnd->bmn", q, p)
            hq, hp = self.pq(q), self.pp(p)
            att = torch.einsum("bmh,bnh->bmn", hq, hp) / hidden ** 0.5 + self.alpha * cos
            att = att.masked_fill(pm[:, None, :] < 0.5, -1e4)
            a = att.softmax(-1)
            c = torch.einsum("bmn,bnh->bmh", a, hp)
            best = cos.masked_fill(pm[:, None, :] < 0.5, -1.0).max(-1).values[..., None]
            s = self.match(torch.cat([hq, c, hq * c, best], -1)).squeeze(-1)  # B x m: is token i matched
            g = self.gate(torch.cat([hq, qf], -1)).squeeze(-1).masked_fill(qm < 0.5, -1e4)
            w = g.softmax(-1)
            soft = (w * s).sum(-1)
            hard = -torch.logsumexp(-s.masked_fill(qm < 0.5, 1e4) * 1.0 + torch.log(w + 1e-9), -1)
            r = (w[..., None] * hq).sum(1)  # question summary
            rr = r[:, None, :].expand_as(hp)
            ans = self.ans(torch.cat([hp, rr, hp * rr, pf, (a * w[..., None]).sum(1)[..., None]], -1)).squeeze(-1)
            ans = ans.masked_fill((pm < 0.5) | (pf[..., 0] > 0.5), -1e4)
            amax = torch.logsumexp(ans, -1).clamp(min=-20)
            return self.out(torch.stack([soft, hard, amax], -1)).squeeze(-1)

    return Interact()


def collate(batch: list[dict]):
    import torch

    m, n = max(len(b["q"]) for b in batch), max(len(b["p"]) for b in batch)
    B = len(batch)
    q = np.zeros((B, m, 384), np.float32); qf = np.zeros((B, m, 2), np.float32); qm = np.zeros((B, m), np.float32)
    p = np.zeros((B, n, 384), np.float32); pf = np.zeros((B, n, 1), np.float32); pm = np.zeros((B, n), np.float32)
    for i, b in enumerate(batch):
        q[i, :len(b["q"])] = b["q"]; qf[i, :len(b["q"])] = b["qf"]; qm[i, :len(b["q"])] = 1
        p[i, :len(b["p"])] = b["p"]; pf[i, :len(b["p"])] = b["pf"]; pm[i, :len(b["p"])] = 1
    t = torch.from_numpy
    return t(q), t(qf), t(qm), t(p), t(pf), t(pm), torch.tensor([b["y"] for b in batch])


def kind_weights(data: list[dict]) -> np.ndarray:
    """Positives weigh as much as all negatives; each negative kind equally."""
    kinds = [d["kind"] for d in data]
    neg = sorted({k for k in kinds if k != "pos"})
    w = np.ones(len(data))
    for i, k in enumerate(kinds):
        w[i] = 0.5 / kinds.count("pos") if k == "pos" else 0.5 / (len(neg) * kinds.count(k))
    return w * len(data)


def train(data: list[dict], epochs: int, log, lr: float = 2e-3, batch: int = 32, hidden: int = 64):
    import torch

    torch.manual_seed(SEED)
    net = make_net(hidden)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-2)
    wts = torch.tensor(kind_weights(data), dtype=torch.float32)
    rng = random.Random(SEED)
    order = list(range(len(data)))
    for ep in range(epochs):
        rng.shuffle(order)
        tot = 0.0
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            *x, y = collate([data[i] for i in idx])
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(net(*x), y, reduction="none") * wts[idx]).mean()
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item() * len(idx)
        log(f"epoch {ep + 1} loss {tot / len(data):.4f}")
    return net


def scores(net, data: list[dict]) -> np.ndarray:
    import torch

    out = []
    with torch.no_grad():
        for s in range(0, len(data), 64):
            *x, _ = collate(data[s:s + 64])
            out += net(*x).tolist()
    return np.array(out)


def aucs(sc: np.ndarray, kinds: list[str]) -> dict[str, float]:
    from fit_grader import roc_auc

    k = np.array(kinds)
    return {n: round(float(roc_auc(sc[k == "pos"], sc[k == n])), 3) for n in ("ablated", "hard", "near", "perturbed")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", default="Normans")
    ap.add_argument("--test", default="Computational_complexity_theory")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--per-doc", type=int, default=10)
    ap.add_argument("--no-synthetic", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--out", type=Path, default=None, help="save the module's weights (torch state dict)")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.1f}s] {msg}", flush=True)

    folder = MODELS / "all-MiniLM-L6-v2"
    enc = TokenEncoder(folder, onnx_path_for(folder), threads=args.threads, cache_size=100000)
    tr, tr_paras = examples_for(args.train, args.per_doc, not args.no_synthetic)
    te, te_paras = examples_for(args.test, args.per_doc, True)  # the order train_align.py writes
    squad_only = {(e.question, e.passage, e.kind) for e in examples_for(args.test, 0, False)[0]}
    keep = [i for i, e in enumerate(te) if (e.question, e.passage, e.kind) in squad_only]
    te = [te[i] for i in keep]
    log(f"train {len(tr)} pairs, test {len(te)} SQuAD pairs of {args.test}")
    dtr = featurise(enc, corpus(tr_paras, tr), tr)
    dte = featurise(enc, corpus(te_paras, te), te)
    log("features done")
    net = train(dtr, args.epochs, log, lr=args.lr, hidden=args.hidden)
    log(f"train (in-sample) {aucs(scores(net, dtr), [d['kind'] for d in dtr])}")
    log(f"held out {args.test}: {aucs(scores(net, dte), [d['kind'] for d in dte])}")
    if args.out:
        torch.save(net.state_dict(), args.out)
        json.dump({"test_scores": scores(net, dte).tolist(), "kinds": [d["kind"] for d in dte], "index": keep},
                  open(args.out.with_suffix(".json"), "w"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
