"""The CRAG decision thresholds' one source: the shipped grader fit (package data
``localcrag/data/grader_fusion.json``, written by scripts/fit_grader.py).

The thresholds were fitted together with the fusion weights on the grader's calibrated scale
(docs/evaluator.md), so they live in that file and nowhere else: the settings' defaults and
the trace drawn before any settings load read them from here, and the CRAG layer's
``load_params`` is this loader. The reader's sidecar (``reader_int8.json``) records the cut
points its calibration was rescaled onto; tests/unit/settings/test_settings.py fails if those disagree.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

PARAMS_FILE = "grader_fusion.json"


@lru_cache(maxsize=1)
def shipped_grader_params() -> dict[str, Any]:
    """The shipped fit: per-grader logistic calibrations and the three thresholds."""
    text = resources.files("localcrag").joinpath("data", PARAMS_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def shipped_thresholds() -> dict[str, float]:
    """``{"upper": .., "lower": .., "strip": ..}`` as fitted with the shipped weights."""
    return {k: float(v) for k, v in shipped_grader_params()["thresholds"].items()}


_T = shipped_thresholds()
UPPER_THRESHOLD: float = _T["upper"]  # a chunk at or above: Correct
LOWER_THRESHOLD: float = _T["lower"]  # every chunk below: Incorrect
STRIP_THRESHOLD: float = _T["strip"]  # refinement keeps strips at or above
