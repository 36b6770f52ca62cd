"""`localcrag eval` end to end with fake models (a fake pipeline factory), plus one real run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.cli import eval as eval_cli
from localcrag.cli.main import main
from localcrag.crag.pipeline import Pipeline
from localcrag.ingest.library import Library
from tests.support import MODELS
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

MODE_KEYS = {
    "decision_accuracy",
    "answer_f1",
    "refusal_accuracy",
    "recall_at_k",
    "mrr_at_k",
    "k",
    "first_token_ms_p50",
}
EVALUATOR_KEYS = {
    "auc_easy",
    "auc_hard",
    "auc_near_miss",
    "auc_ablated",
    "accuracy",
    "ms_per_chunk",
}


@pytest.fixture()
def fake_pipelines(monkeypatch: pytest.MonkeyPatch) -> list[Pipeline]:
    made: list[Pipeline] = []

    def factory(settings):
        pipe = Pipeline(
            settings,
            library=Library(settings, embedder=FakeEmbedder()),
            grader=FakeGrader(),
            generator=FakeGenerator("Cobots work next to people in factories [1]."),
        )
        made.append(pipe)
        return pipe

    monkeypatch.setattr(eval_cli, "pipeline_factory", factory)
    return made


def _json(capsys: pytest.CaptureFixture) -> dict:
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1
    return json.loads(out)


def test_json_shape_with_fakes(fake_pipelines, generic: Path, capsys, isolated_home: Path) -> None:
    assert main(["eval", str(generic), "--json", "-k", "2"]) == 0
    res = _json(capsys)
    assert res["dataset"] == "generic" and res["questions"] == 3 and res["k"] == 2
    assert set(res["modes"]) == {"crag", "rag"}
    for mode in res["modes"].values():
        assert MODE_KEYS <= set(mode) and mode["k"] == 2
        assert mode["recall_at_k"] == 1.0 and mode["mrr_at_k"] == 1.0
        assert mode["refusal_accuracy"] is not None and mode["first_token_ms_p50"] is not None
        assert mode["answer_f1"] > 0
    assert res["modes"]["rag"]["decision_accuracy"] is None
    assert res["modes"]["crag"]["decision_accuracy"] is not None
    assert EVALUATOR_KEYS <= set(res["evaluator"]) and all(
        res["evaluator"][k] is None for k in EVALUATOR_KEYS
    )
    assert set(res["retrieval"]["by_mode"]) == {"hybrid", "vector", "text"}
    # the index is the evaluation's own, under LOCALCRAG_HOME/eval/, never the user's
    index = Path(res["index"]["dir"])
    assert index.is_relative_to(isolated_home / "eval") and res["index"]["indexed"] == 2
    assert (
        fake_pipelines[0].settings.web.offline
        and fake_pipelines[0].settings.generation.temperature == 0.0
    )
    assert [it["crag"]["action"] for it in res["items"]][2] == "incorrect"  # offline: refused
    assert res["items"][2]["crag"]["refused"] is True
    assert res["items"][2]["crag"]["outcome"] == "right_refusal"
    for mode in res["modes"].values():  # the trust table: 2 answerable questions, 1 not
        assert (mode["trust"]["answerable"]["n"], mode["trust"]["unanswerable"]["n"]) == (2, 1)
        assert "wrong_answer_rate" in mode and "wrong_refusal_rate" in mode

    assert main(["eval", str(generic), "--json", "--only", "retrieval", "--mode", "rag"]) == 0
    again = _json(capsys)
    assert again["index"]["unchanged"] == 2 and again["index"]["indexed"] == 0  # index re-used
    assert set(again["modes"]) == {"rag"} and again["modes"]["rag"]["answer_f1"] is None


def test_squad_evaluator_part_and_report_files(
    fake_pipelines, shared_data: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "report"
    small = shared_data / "squad2-dev-subset" / "small.json"
    assert (
        main(
            [
                "eval",
                str(small),
                "--only",
                "evaluator",
                "--limit",
                "8",
                "--seed",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "retrieval evaluator" in text and "near_miss" in text
    res = json.loads((out / "results.json").read_text())
    ev = res["evaluator"]
    assert ev["by_kind"]["ablated"]["n"] >= 1
    assert ev["pairs"] == 4 * 3 + 4 + ev["by_kind"]["ablated"]["n"] and all(
        ev[k] is not None for k in EVALUATOR_KEYS
    )
    assert res["retrieval"] is None and res["modes"]["crag"]["answer_f1"] is None
    assert (out / "report.md").read_text().startswith("# localcrag eval: squad2")
    assert (out / "evaluator_roc.png").stat().st_size > 1000


class StyleRecordingPipeline(Pipeline):
    """Records the answer style eval asks for, then runs the real (fake-model) pipeline."""

    styles: list = []

    def run(self, question, *, style=None, **kw):  # type: ignore[override]
        self.styles.append((kw.get("mode"), style))
        yield from super().run(question, style=style, **kw)


def test_style_both_compares_extractive_and_generative(
    monkeypatch, generic: Path, tmp_path: Path, capsys, isolated_home: Path
) -> None:
    StyleRecordingPipeline.styles = []
    # evidence holds "factories" but not "Osaka" nor "1998": the generic answer invents both
    # (the product's sentence check drops that sentence), and "never injure" in a sentence
    # the check lets through
    monkeypatch.setattr(
        eval_cli,
        "pipeline_factory",
        lambda settings: StyleRecordingPipeline(
            settings,
            library=Library(settings, embedder=FakeEmbedder()),
            grader=FakeGrader(),
            generator=FakeGenerator(
                "Cobots work safely in factories and never injure people [1]. "
                "Cobots work in factories near Osaka since 1998 [1]."
            ),
        ),
    )
    out = tmp_path / "report"
    assert (
        main(
            [
                "eval",
                str(generic),
                "--json",
                "--only",
                "answers",
                "--style",
                "both",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    res = _json(capsys)
    assert list(res["modes"]) == ["crag/extractive", "crag/generative", "rag"]
    assert [res["modes"][c]["style"] for c in res["modes"]] == [
        "extractive",
        "generative",
        "generative",
    ]
    assert (
        StyleRecordingPipeline.styles
        == [("crag", "extractive")] * 3 + [("crag", "generative")] * 3 + [("rag", "generative")] * 3
    )
    assert res["modes"]["crag/extractive"]["decision_accuracy"] is not None  # still a CRAG column
    # the sentence check drops the Osaka sentence in every mode, RAG too; the eval checks every
    # content word, not the product's rule, so what it let through still counts
    first = res["items"][0]
    assert first["rag"]["dropped_sentences"] == 1 and "Osaka" not in first["rag"]["answer"]
    assert first["rag"]["unsupported"] == ["never", "injure"]
    assert (
        res["modes"]["rag"]["unsupported_rate"] > 0
        and res["modes"]["crag/generative"]["unsupported_rate"] > 0
    )
    # ... and the model's draft, before that check, names Osaka and 1998
    assert {"Osaka", "1998"} <= set(first["rag"]["draft_unsupported"])
    assert res["modes"]["rag"]["draft_unsupported_rate"] > 0
    assert (
        res["modes"]["crag/extractive"]["unsupported_rate"] == 0.0
    )  # a quote says only what it quotes
    assert res["modes"]["crag/extractive"]["draft_unsupported_rate"] is None  # no model wrote
    assert first["crag/generative"]["f1"] is not None
    report = (out / "report.md").read_text()
    assert "CRAG/EXTRACTIVE" in report and "unsupported answers" in report

    assert (
        main(["eval", str(generic), "--only", "answers", "--style", "extractive", "--mode", "rag"])
        == 0
    )
    assert "answer style" in capsys.readouterr().out and StyleRecordingPipeline.styles[-1] == (
        "rag",
        "extractive",
    )


def test_unrecognised_dataset_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["eval", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "questions.jsonl" in err and err.startswith("localcrag:")


@pytest.mark.slow
def test_real_retrieval_on_val_json(shared_data: Path, capsys) -> None:
    if not (MODELS / "all-MiniLM-L6-v2").exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    assert (
        main(
            [
                "eval",
                str(shared_data / "ai-information" / "val.json"),
                "--limit",
                "2",
                "--only",
                "retrieval",
                "--json",
            ]
        )
        == 0
    )
    res = _json(capsys)
    assert res["questions"] == 2 and res["retrieval"]["questions"] == 1
    assert res["modes"]["crag"]["recall_at_k"] is not None
    assert res["index"]["chunks"] > 20


def test_decisions_part_and_rerank_with_fakes(fake_pipelines, generic: Path, capsys) -> None:
    assert main(["eval", str(generic), "--only", "decisions", "--json", "-k", "2"]) == 0
    d = _json(capsys)["decisions"]
    assert d["questions"] == 3 and d["answerable"]["n"] == 2 and d["unanswerable"]["n"] == 1
    assert sum(d["answerable"][a] for a in ("correct", "ambiguous", "incorrect")) == 2
    assert [r["ok"] for r in d["items"]] == [
        r["action"] in ("correct", "ambiguous") if r["answerable"] else r["action"] == "incorrect"
        for r in d["items"]
    ]
    assert d["thresholds"]["basis"] == "settings" and not d["thresholds"]["calibrated"]
    assert main(["eval", str(generic), "--only", "decisions", "--calibrate", "on", "-k", "2"]) == 0
    text = capsys.readouterr().out  # calibrated, or the settings' with the reason: said either way
    assert "thresholds lower " in text and (
        "calibrated on this corpus" in text or "settings (" in text
    )
    assert (
        main(["eval", str(generic), "--only", "retrieval", "--rerank", "4", "--json", "-k", "2"])
        == 0
    )
    r = _json(capsys)["retrieval"]
    assert r["rerank"] == 4 and "hybrid+rerank" in r["by_mode"] and r["rerank_ms_p50"] is not None


def test_article_filter_and_bad_grader_model(
    fake_pipelines, shared_data: Path, tmp_path: Path, capsys
) -> None:
    small = shared_data / "squad2-dev-subset" / "small.json"
    assert (
        main(
            [
                "eval",
                str(small),
                "--only",
                "evaluator",
                "--article",
                "Normans",
                "--limit",
                "4",
                "--json",
            ]
        )
        == 0
    )
    res = _json(capsys)
    assert res["article"] == "Normans" and all(it["qid"] for it in res["items"])
    assert main(["eval", str(small), "--only", "evaluator", "--article", "Nope"]) == 1
    assert "choose one of: Computational_complexity_theory, Normans" in capsys.readouterr().err
    assert (
        main(
            ["eval", str(small), "--only", "evaluator", "--grader-model", str(tmp_path / "x.onnx")]
        )
        == 1
    )
    assert "no such model file" in capsys.readouterr().err


def test_grader_model_help_names_a_file_not_only_onnx() -> None:
    """It takes a reader .onnx or a fusion params .json: the usage line says FILE."""
    from localcrag.cli.main import build_parser

    usage = build_parser()._subparsers._group_actions[0].choices["eval"].format_usage()
    assert "--grader-model FILE" in usage and "ONNX" not in usage


def test_trust_table_on_val_json_with_fakes(
    fake_pipelines, shared_data: Path, tmp_path: Path, capsys
) -> None:
    """The trust table on ai-information/val.json (fake models: the numbers are the table's
    arithmetic, not the product's quality): every question lands in exactly one cell, the
    rates follow from the counts, and plain RAG, which grades nothing, refuses an
    unanswerable question only when no unit binds it."""
    from localcrag.eval.datasets import load_ai_information

    val = shared_data / "ai-information" / "val.json"
    ds = load_ai_information(val)
    yes = sum(q.answerable for q in ds.questions)
    out = tmp_path / "report"
    assert main(["eval", str(val), "--only", "answers", "--json", "--out", str(out)]) == 0
    res = _json(capsys)
    for column, mode in res["modes"].items():
        t = mode["trust"]
        assert (t["answerable"]["n"], t["unanswerable"]["n"]) == (yes, len(ds.questions) - yes)
        for side in ("answerable", "unanswerable"):
            assert (
                sum(
                    t[side][o]
                    for o in (
                        "right_answer",
                        "wrong_answer",
                        "right_refusal",
                        "wrong_refusal",
                        "unjudged",
                    )
                )
                == t[side]["n"]
            )
        assert (
            t["unanswerable"]["right_answer"] == t["answerable"]["right_refusal"] == 0
        )  # impossible cells
        answers, refusals = (
            t["right_answer"] + t["wrong_answer"],
            t["right_refusal"] + t["wrong_refusal"],
        )
        assert mode["wrong_answer_rate"] == (
            round(t["wrong_answer"] / answers, 4) if answers else None
        )
        assert mode["wrong_refusal_rate"] == (
            round(t["wrong_refusal"] / refusals, 4) if refusals else None
        )
        assert [it[column]["outcome"] for it in res["items"]].count("wrong_answer") == t[
            "wrong_answer"
        ]
    rag = res["modes"]["rag"][
        "trust"
    ]  # plain RAG grades nothing: an unanswerable question is refused only by the quote
    # finding no unit that binds it, else answered wrongly
    assert (
        rag["unanswerable"]["wrong_answer"] + rag["unanswerable"]["right_refusal"]
        == len(ds.questions) - yes
    )
    terminal = (out / "report.md").read_text()
    assert "trust against the reference answers" in terminal and "wrong answer rate" in terminal
    assert (
        json.loads((out / "results.json").read_text())["modes"]["crag"]["trust"]
        == res["modes"]["crag"]["trust"]
    )
