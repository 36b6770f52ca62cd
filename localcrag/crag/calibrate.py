"""Per-corpus self-calibration of the CRAG thresholds (setting ``calibrate``).

The thresholds in the settings were fitted on SQuAD 2.0 (docs/evaluator.md). A grader's
score scale may shift with the corpus, so fixed thresholds may misjudge another library.
This module measures the grader on *probe questions* made from the library's own chunks
(:mod:`localcrag.crag.probes`; no evaluation question, no label) and transports the
thresholds from the reference corpus to this one:

* ``own``: a template question over a sentence of a chunk, retrieved by the product's own
  retrieval; its best grade among the top-k (what :func:`decide` sees) is a score of a
  question the corpus answers;
* ``foreign``: the same kind of question over a text no library is expected to hold (the
  Python reference in ``pydoc_data``), retrieved and graded on this corpus; probes whose
  answer string appears in a retrieved chunk are skipped;
* ``ablated``: the probe's own chunk with its source sentence cut (kept for the report).

The map from this corpus's scores to the reference scale is piecewise linear and monotone
through (0, 0), (median foreign, its reference median), (median own, its reference median),
(1, 1); a threshold ``t`` of the settings becomes ``map^-1(t)`` here. On the reference
corpus itself the map is the identity, so the settings keep their meaning; the reference
medians (``localcrag/data/calibration_reference.json``) come from the SQuAD articles the
thresholds were fitted on (``scripts/calibration_reference.py``). Seeded, deterministic.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localcrag.crag.probes import ablate, foreign_texts, make_probes
from localcrag.types import Chunk

if TYPE_CHECKING:
    from localcrag.crag.graders.base import Grader
    from localcrag.ingest.library import Searchable
    from localcrag.settings import Settings

VERSION = 1  # bump when the probes or the rule change: cached calibrations are then redone
N_PROBES = 40  # own and foreign probes each
REFERENCE_FILE = "calibration_reference.json"
MIN_PROBES = 8  # fewer usable probes of a kind: no calibration (the settings' thresholds apply)

Search = Callable[[str], Sequence[Chunk]]


@dataclass(frozen=True)
class Thresholds:
    """The thresholds a decision used, and where they came from (shown in trace and JSON)."""

    upper: float
    lower: float
    strip: float
    basis: str = "settings"
    calibrated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "upper": round(self.upper, 4),
            "lower": round(self.lower, 4),
            "strip": round(self.strip, 4),
            "calibrated": self.calibrated,
            "basis": self.basis,
        }


def from_settings(settings: Settings) -> Thresholds:
    return Thresholds(
        settings.evaluator.upper_threshold,
        settings.evaluator.lower_threshold,
        settings.evaluator.strip_threshold,
    )


@dataclass(frozen=True)
class ProbeStats:
    """Best scores of the probes on one corpus (see the module docstring)."""

    own: tuple[float, ...] = ()
    foreign: tuple[float, ...] = ()
    ablated: tuple[float, ...] = ()
    own_missed: int = 0  # own probes whose source chunk was not among the top-k
    seconds: float = 0.0
    key: str = ""
    version: int = VERSION
    extra: dict[str, Any] = field(default_factory=dict)

    def anchors(self) -> tuple[float, float] | None:
        """(median foreign, median own), or None when there are too few probes."""
        if len(self.own) < MIN_PROBES or len(self.foreign) < MIN_PROBES:
            return None
        return statistics.median(self.foreign), statistics.median(self.own)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ProbeStats:
        return cls(**{**d, **{k: tuple(d.get(k, ())) for k in ("own", "foreign", "ablated")}})


def _mentions(answer: str, text: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(answer.lower()) + r"(?!\w)", text.lower()) is not None


def measure(
    grader: Grader,
    search: Search,
    texts: Sequence[str],
    n: int = N_PROBES,
    seed: int = 0,
    key: str = "",
) -> ProbeStats:
    """Grade ``n`` own and ``n`` foreign probes on this corpus (``search``: question ->
    the product's top-k chunks)."""
    t0 = time.perf_counter()
    own, abl, missed = [], [], 0
    for p in make_probes(texts, n, seed):
        chunks = list(search(p.question))
        grades = grader.grade(p.question, chunks) if chunks else []
        if not any(c.text == texts[p.source] for c in chunks):
            missed += 1  # retrieval missed it: a retrieval failure, not a grading scale
            continue
        own.append(max(g.score for g in grades))
        if (cut := ablate(texts[p.source], p.sentence)) is not None:
            abl.append(grader.score_texts(p.question, [cut])[0])
    foreign = []
    for p in make_probes(foreign_texts(), n, seed):
        chunks = list(search(p.question))
        if not chunks or any(_mentions(p.answer, c.text) for c in chunks):
            continue  # the corpus may hold this answer after all: no safe negative
        foreign.append(max(g.score for g in grader.grade(p.question, chunks)))
    return ProbeStats(
        tuple(round(x, 4) for x in own),
        tuple(round(x, 4) for x in foreign),
        tuple(round(x, 4) for x in abl),
        missed,
        round(time.perf_counter() - t0, 2),
        key,
    )


def load_reference() -> dict[str, Any]:
    """The reference corpus's anchors (package data) for the grader named in it."""
    text = resources.files("localcrag").joinpath("data", REFERENCE_FILE).read_text(encoding="utf-8")
    reference: dict[str, Any] = json.loads(text)
    return reference


def _inverse(t: float, corpus: tuple[float, float], ref: tuple[float, float]) -> float:
    """The corpus score that the monotone piecewise-linear map sends to ``t``."""
    xs, ys = (0.0, *corpus, 1.0), (0.0, *ref, 1.0)
    for i in range(3):
        if ys[i] <= t <= ys[i + 1]:
            span = ys[i + 1] - ys[i]
            return xs[i] + (xs[i + 1] - xs[i]) * ((t - ys[i]) / span if span > 0 else 0.0)
    return t


def calibrated(settings: Settings, stats: ProbeStats, reference: dict[str, Any]) -> Thresholds:
    """The settings' thresholds carried to this corpus; the settings' own (with the reason)
    when the probes cannot support a map."""
    base = from_settings(settings)
    anchors = stats.anchors()
    ref = reference.get("graders", {}).get(settings.evaluator.grader)
    why = None
    if ref is None:
        why = f"no reference calibration for grader {settings.evaluator.grader!r}"
    elif anchors is None:
        why = f"too few probes ({len(stats.own)} own, {len(stats.foreign)} foreign; need {MIN_PROBES})"
    elif not (0.0 < anchors[0] < anchors[1] < 1.0):
        why = f"probe scores do not separate (foreign {anchors[0]:.2f}, own {anchors[1]:.2f})"
    if why or anchors is None:  # (why says so when anchors is None)
        return Thresholds(base.upper, base.lower, base.strip, f"settings ({why})", False)
    r = (float(ref["foreign"]), float(ref["own"]))
    up, lo, st = (_inverse(t, anchors, r) for t in (base.upper, base.lower, base.strip))
    basis = (
        f"calibrated on this corpus ({len(stats.own)} own / {len(stats.foreign)} foreign probes, "
        f"medians {anchors[1]:.2f} / {anchors[0]:.2f}; reference {r[1]:.2f} / {r[0]:.2f})"
    )
    return Thresholds(up, min(lo, up), st, basis, True)


def cached(path: Path, key: str, compute: Callable[[], ProbeStats]) -> ProbeStats:
    """The probe statistics stored at ``path`` for this index version ``key``, else computed
    and stored (an unwritable index folder only costs the cache)."""
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("key") == key and d.get("version") == VERSION:
            return ProbeStats.from_json(d)
    except (OSError, ValueError, TypeError):
        pass
    stats = compute()
    try:
        path.write_text(json.dumps(stats.to_json()), encoding="utf-8")
    except OSError:
        pass
    return stats


def corpus_thresholds(settings: Settings, library: Searchable, grader: Grader) -> Thresholds:
    """The thresholds for this library: the settings' own unless ``settings.evaluator.calibrate``;
    then calibrated on the indexed chunks, measured once per index version (cached in the
    index folder as ``calibration-<grader>.json``)."""
    if not settings.evaluator.calibrate:
        return from_settings(settings)
    from localcrag.crag.retrieve import Retriever

    count = library.count()
    if not count:
        return from_settings(settings)
    s = settings
    key = ":".join(
        str(x)
        for x in (
            count,
            library.change_stamp(),
            s.evaluator.grader,
            s.evaluator.grader_model,
            s.models.embedder,
            s.indexing.chunk_tokens,
            s.retrieval.top_k,
            s.retrieval.retrieval_mode,
        )
    )
    retriever = Retriever(s, library)

    def compute() -> ProbeStats:
        texts = library.store.all_texts()
        return measure(
            grader,
            lambda q: [h.chunk for h in retriever.search(q, k=s.retrieval.top_k)],
            texts,
            key=key,
        )

    stats = cached(Path(s.index_dir) / f"calibration-{s.evaluator.grader}.json", key, compute)
    return calibrated(s, stats, load_reference())
