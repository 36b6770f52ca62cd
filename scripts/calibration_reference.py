"""Write localcrag/data/calibration_reference.json: the probe medians on the reference corpus.

The CRAG thresholds in the settings were fitted on the two SQuAD 2.0 articles of
../shared/data/squad2-dev-subset/small.json (scripts/fit_grader.py). Per-corpus calibration
(localcrag/crag/calibrate.py) maps a library's scores onto that corpus's scale, so it needs
the same probe measurements there: the articles' paragraphs are indexed (the eval
command's index, under $LOCALCRAG_HOME/eval/) and graded on template probes exactly as a
user's library would be. Only the paragraph text is used, never a SQuAD question.

    python scripts/calibration_reference.py [--grader fusion] [--dataset PATH]

Seed 0; deterministic given the index (re-running gives the same medians).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from localcrag.crag.calibrate import N_PROBES, REFERENCE_FILE, measure  # noqa: E402
from localcrag.crag.pipeline import Pipeline  # noqa: E402
from localcrag.crag.retrieve import Retriever  # noqa: E402
from localcrag.eval.adapters import load_dataset  # noqa: E402
from localcrag.eval.runner import _ingest, eval_settings, workdir_for  # noqa: E402
from localcrag.settings import Settings  # noqa: E402

DEFAULT = REPO.parent / "shared" / "data" / "squad2-dev-subset" / "small.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=DEFAULT)
    ap.add_argument("--grader", default="fusion")
    ap.add_argument("--out", type=Path, default=REPO / "localcrag" / "data" / REFERENCE_FILE)
    args = ap.parse_args()
    ds = load_dataset(args.dataset)
    base = Settings.load().merged({"grader": args.grader, "calibrate": False})
    s = eval_settings(base, workdir_for(ds) / "index", True)
    pipe = Pipeline(s)
    _ingest(pipe, ds, workdir_for(ds), lambda p: None)
    retriever = Retriever(s, pipe.library)
    stats = measure(
        pipe.grader,
        lambda q: [h.chunk for h in retriever.search(q, k=s.retrieval.top_k)],
        pipe.library.store.all_texts(),
        N_PROBES,
    )
    anchors = stats.anchors()
    if anchors is None:
        raise SystemExit(
            f"too few probes on {ds.path}: {len(stats.own)} own, {len(stats.foreign)} foreign"
        )
    old = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    graders = {
        **old.get("graders", {}),
        args.grader: {
            "foreign": round(anchors[0], 4),
            "own": round(anchors[1], 4),
            "n_own": len(stats.own),
            "n_foreign": len(stats.foreign),
            "own_missed": stats.own_missed,
            "embedder": s.models.embedder,
            "top_k": s.retrieval.top_k,
            "retrieval_mode": s.retrieval.retrieval_mode,
            "chunk_tokens": s.indexing.chunk_tokens,
            "seconds": stats.seconds,
        },
    }
    out = {
        "corpus": f"{ds.path.parent.name}/{ds.path.name} (paragraph text only; no question used)",
        "made_by": "scripts/calibration_reference.py",
        "graders": graders,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(graders[args.grader]))


if __name__ == "__main__":
    main()
