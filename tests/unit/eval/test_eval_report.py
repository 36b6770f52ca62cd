"""The eval report's wording: numbers that cannot be misread."""

from __future__ import annotations

from localcrag.eval.answers import summarise
from localcrag.eval.report import markdown, terminal_table
from tests.support.fakes import FakeGrader


def _row(timings: dict, total: float, refused: bool) -> dict:
    return {
        "qid": "q",
        "answerable": not refused,
        "action": "correct",
        "refused": refused,
        "decision_ok": True,
        "refusal_ok": True,
        "outcome": "right_refusal" if refused else "right_answer",
        "f1": 0.5,
        "recall": 0.5,
        "unsupported": None,
        "draft_unsupported": None,
        "evidence_recall": None,
        "timings_ms": timings,
        "total_ms": total,
    }


def _result() -> dict:
    rows = [
        _row({"retrieve": 5.0, "first_token": 10.0, "total": 12.0}, 12.0, True),  # refusal
        _row({"retrieve": 5.0, "first_token": 8.0, "total": 12.0}, 12.0, True),
        _row(
            {
                "retrieve": 5.0,
                "generate": 3000.0,
                "first_token": 900.0,
                "generate_end": 3500.0,
                "total": 3510.0,
            },
            3510.0,
            False,
        ),
    ]
    crag = summarise(rows, "crag")
    return {
        "dataset": "toy",
        "questions": 3,
        "k": 3,
        "seed": 0,
        "elapsed_s": 4,
        "limit": None,
        "path": "toy.json",
        "modes": {"crag": crag},
        "retrieval": {
            "questions": 3,
            "k": 3,
            "pool": 12,
            "by_mode": {"hybrid": {"recall_at_k": 1.0, "mrr_at_k": 1.0}},
        },
        "index": {"chunks": 120},
        "settings": {
            "embedder": "e",
            "generator": "g",
            "grader": "fusion",
            "lower_threshold": 0.5,
            "upper_threshold": 0.7,
            "retrieval_mode": "hybrid",
            "offline": True,
            "temperature": 0.0,
        },
    }


def test_a_stage_p50_says_over_how_many_questions_and_elapsed_times_say_from_when() -> None:
    res = _result()
    assert res["modes"]["crag"]["total_ms_p50"] < res["modes"]["crag"]["latency_ms_p50"]["generate"]
    text = terminal_table(res)
    assert "generate stage p50 (ms; over 1/3 questions)" in text  # not comparable to the total
    assert "retrieve stage p50 (ms; over 3/3 questions)" in text
    assert (
        "answer done p50 (ms after the question)" in text
        and "first token p50 (ms after the question)" in text
    )
    assert "from 12 chunks" not in text and "among the 12 retrieved per question" in text
    assert "The index holds 120 chunks." in markdown(res)


def test_report_md_has_a_decisions_section_with_the_terminals_numbers() -> None:
    """`eval --only decisions --out DIR`: the decisions (actions, answered / refused, the
    withheld run) had no section of their own in report.md; one formatter writes both."""
    from localcrag.eval.decisions import summarise as decisions_summary
    from localcrag.eval.report import decision_lines

    rows = [
        {
            "qid": "a",
            "answerable": True,
            "action": "correct",
            "best": 0.81,
            "ok": True,
            "errors": 0,
            "withheld": 0,
            "answer_seen": True,
            "gold_graded": True,
            "chunks": [],
        },
        {
            "qid": "b",
            "answerable": False,
            "action": "ambiguous",
            "best": 0.55,
            "ok": False,
            "errors": 0,
            "withheld": 0,
            "answer_seen": None,
            "gold_graded": None,
            "chunks": [],
        },
    ]
    d = decisions_summary(rows, FakeGrader(), 0.1)
    d["thresholds"] = {"lower": 0.5, "upper": 0.7, "basis": "settings"}
    res = {
        **_result(),
        "modes": {},
        "retrieval": None,
        "decisions": d,
        "items": [
            {"qid": "a", "question": "Who | what?", "answerable": True},
            {"qid": "b", "question": "Why?", "answerable": False},
        ],
    }
    lines = decision_lines(d)
    assert lines[0].startswith("CRAG decisions (fake, no generation): accuracy 0.500")
    terminal, report = terminal_table(res), markdown(res)
    assert all(line in terminal for line in lines)
    section = report.split("## CRAG decisions", 1)[1]
    assert all(f"- {line}" in section for line in lines)
    assert "| Who \\| what? | yes | correct | 0.810 | yes |" in section
    assert "| Why? | no | ambiguous | 0.550 | no |" in section
    assert report.count("answerable 1: 1 correct") == 1  # once: not also in the text block
    assert "```" not in report.split("## CRAG decisions")[0]  # no text block of the head line alone
    assert "\n\n\n" not in terminal and "\n\n\n" not in terminal_table(
        _result()
    )  # one blank line between blocks
