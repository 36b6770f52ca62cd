"""``grader = "fusion"`` with ``grader_model`` = another params file (scripts/fit_withheld.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.crag.grade import make_grader
from localcrag.crag.graders.base import load_params
from localcrag.errors import LocalcragError
from localcrag.settings import Settings
from localcrag.types import Chunk
from tests.support.fakes import FakeEmbedder

TEXT = "The Normans were led by Rollo, who swore fealty to King Charles III of West Francia."
QUESTION = "Who led the Normans?"


def _chunk() -> Chunk:
    return Chunk("c0", "/docs/a.md", TEXT, 1, 1, 0, len(TEXT))


def test_a_params_file_replaces_the_shipped_fusion_weights(tmp_path: Path) -> None:
    params = json.loads(json.dumps(load_params()))
    params["graders"]["fusion"] = {"features": ["key"], "weights": [0.0], "bias": 0.0}  # always 0.5
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(params), encoding="utf-8")
    shipped = make_grader(Settings(grader="fusion"), FakeEmbedder())
    other = make_grader(Settings(grader="fusion", grader_model=str(path)), FakeEmbedder())
    assert other.name == "fusion"
    assert other.grade(QUESTION, [_chunk()])[0].score == pytest.approx(0.5)
    assert shipped.grade(QUESTION, [_chunk()])[0].score != pytest.approx(0.5)


def test_a_bad_params_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(LocalcragError, match="broken.json: not a fusion params file"):
        make_grader(Settings(grader="fusion", grader_model=str(path)), FakeEmbedder())


def test_eval_takes_a_params_file_and_its_thresholds(tmp_path: Path) -> None:
    import argparse

    from localcrag.cli.eval import _settings

    params = {
        **load_params(),
        "thresholds": {"lower_threshold": 0.63, "upper_threshold": 0.9, "strip_threshold": 0.46},
    }
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(params), encoding="utf-8")
    args = argparse.Namespace(grader="fusion", grader_model=path, calibrate=None, generator=None)
    s = _settings(args, Settings())
    assert (
        s.evaluator.grader,
        s.evaluator.grader_model,
        s.evaluator.lower_threshold,
        s.evaluator.upper_threshold,
    ) == (
        "fusion",
        str(path.resolve()),
        0.63,
        0.9,
    )


def test_without_grader_the_file_says_which_grader_it_belongs_to(tmp_path: Path) -> None:
    """A fusion params .json brings its thresholds; a reader .onnx is the reader's, on the
    settings' thresholds (its sidecar calibrates onto them); any other .json is refused."""
    import argparse

    from localcrag.cli.eval import _settings

    def picked(path: Path) -> Settings:
        return _settings(
            argparse.Namespace(grader=None, grader_model=path, calibrate=None, generator=None),
            Settings(),
        )

    th = {"lower_threshold": 0.5, "upper_threshold": 0.7, "strip_threshold": 0.4}
    fusion, other = tmp_path / "fusion.json", tmp_path / "head.json"
    fusion.write_text(json.dumps({**load_params(), "thresholds": th}), encoding="utf-8")
    other.write_text(
        json.dumps({"grader": "align", "calibration": {}, "thresholds": th}), encoding="utf-8"
    )
    onnx = tmp_path / "reader.onnx"
    onnx.write_bytes(b"x")
    (tmp_path / "reader.json").write_text(
        json.dumps({"calibration": {"features": ["reader"], "weights": [1.0], "bias": 0.0}}),
        encoding="utf-8",
    )
    f, r = picked(fusion), picked(onnx)
    assert (
        f.evaluator.grader,
        f.evaluator.lower_threshold,
        f.evaluator.upper_threshold,
        f.evaluator.strip_threshold,
    ) == (
        "fusion",
        0.5,
        0.7,
        0.4,
    )
    assert (r.evaluator.grader, r.evaluator.grader_model, r.evaluator.lower_threshold) == (
        "reader",
        str(onnx.resolve()),
        Settings().evaluator.lower_threshold,
    )
    with pytest.raises(LocalcragError, match="head.json: neither a reader model"):
        picked(other)
