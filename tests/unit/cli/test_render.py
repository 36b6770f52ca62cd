"""The terminal shows rendered text: rich Markdown in a terminal, plain
text when piped, never raw asterisks; citations numbered by first use, 1..n, in every mode
and in the trace; printed scores whose comparison is true."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from localcrag.cli.main import build_parser
from localcrag.cli.render import AnswerView, plain, tidy
from localcrag.crag.answer.citations import renumber
from localcrag.crag.decide import decide
from localcrag.crag.pipeline import Pipeline
from localcrag.ingest.library import Library
from localcrag.record import RunRecord
from localcrag.settings import Settings
from localcrag.types import Evidence, Grade
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader


@pytest.mark.parametrize(
    ("text", "tidied", "flat"),
    [
        (
            "Met on **Thursday **21 March**** [1].",
            "Met on **Thursday 21 March** [1].",
            "Met on Thursday 21 March [1].",
        ),
        ("Close: **23.83** [1].", "Close: **23.83** [1].", "Close: 23.83 [1]."),
        ("an odd ** marker", "an odd  marker", "an odd  marker"),
        ("**open only", "open only", "open only"),
    ],
)
def test_bold_is_balanced_and_plain_text_has_no_asterisks(
    text: str, tidied: str, flat: str
) -> None:
    assert tidy(text) == tidied and plain(text) == flat


def test_a_terminal_gets_rendered_markdown_and_a_pipe_plain_text() -> None:
    piped = io.StringIO()
    with AnswerView(piped, terminal=False) as view:
        view.feed("ignored while streaming ")
        view.finish("The lamp costs **42 euros** [1].")
    assert piped.getvalue() == "The lamp costs 42 euros [1].\n"
    tty = io.StringIO()
    with AnswerView(tty, terminal=True) as view:
        view.feed("The lamp costs **42")
        view.finish("The lamp costs **42 euros** [1].")
    shown = tty.getvalue()
    assert (
        "42 euros" in shown and "**" not in shown and "\x1b[" in shown
    )  # bold as an escape, not asterisks


def test_citations_are_numbered_in_order_of_first_use_without_gaps() -> None:
    evidence = [Evidence(n, f"text {n}", f"/d/{n}.txt") for n in (1, 2, 3)]
    text, numbered = renumber("First [3]. Then [1]. Again [3].", [3, 1], evidence)
    assert text == "First [1]. Then [2]. Again [1]."
    assert [(e.n, e.source) for e in numbered] == [
        (1, "/d/3.txt"),
        (2, "/d/1.txt"),
        (3, "/d/2.txt"),
    ]


@pytest.mark.parametrize("mode", ["crag", "rag"])
def test_every_mode_cites_one_to_n_and_the_trace_numbers_only_cited_chunks(
    tmp_path: Path, mode: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The blue lamp costs twelve euros in the shop.\n", encoding="utf-8")
    (docs / "b.txt").write_text("The red lamp costs forty euros in the shop.\n", encoding="utf-8")
    (docs / "c.txt").write_text(
        "Lamps are sold in the shop every day of the week.\n", encoding="utf-8"
    )
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([docs])
    settings = Settings(
        offline=True,
        upper_threshold=0.2,
        lower_threshold=0.1,
        strip_threshold=0.1,
        answer_style="generative",
    )
    record = RunRecord("What do the lamps cost?", mode)
    draft = "The red lamp costs forty euros [3]. The blue lamp costs twelve euros [2]."
    pipe = Pipeline(settings, library=lib, grader=FakeGrader(), generator=FakeGenerator(draft))
    for event in pipe.run(record.question, mode=mode):
        record.add(event)
    assert record.answer is not None
    import re

    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", record.answer.text)]
    assert numbers and list(dict.fromkeys(numbers)) == list(range(1, len(set(numbers)) + 1)), (
        record.answer.text
    )
    assert [c.n for c in record.answer.citations] == sorted(set(numbers))
    cited = {c.n for c in record.answer.citations}
    assert {n for ns in record.hit_numbers().values() for n in ns} == cited  # the trace's [n]


def test_a_printed_comparison_of_scores_is_true() -> None:
    reason = decide([Grade(None, 0.7596, "g")], 0.7601, 0.51).reason  # type: ignore[arg-type]
    assert reason == "best chunk scored 0.7596, between 0.51 and 0.7601"
    assert (
        decide([Grade(None, 0.6, "g")], 0.76, 0.51).reason
        == "best chunk scored 0.60, between 0.51 and 0.76"
    )
    assert decide([Grade(None, 0.3499, "g")], 0.8, 0.35).reason.endswith(
        "below 0.3500 (best 0.3499)"
    )


def test_ask_piped_prints_plain_text(
    monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path
) -> None:
    import localcrag.crag.pipeline as pipeline_module
    from localcrag.cli import ask

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lamp.txt").write_text("The blue lamp costs 12 euros in the shop.\n", encoding="utf-8")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([docs])
    settings = Settings(
        offline=True,
        upper_threshold=0.2,
        lower_threshold=0.1,
        strip_threshold=0.1,
        answer_style="extractive",
    )
    monkeypatch.setattr(
        pipeline_module,
        "Pipeline",
        lambda s: Pipeline(settings, library=lib, grader=FakeGrader(), generator=None),
    )
    args = build_parser().parse_args(["ask", "How much does the blue lamp cost?", "--offline"])
    assert ask.cmd_ask(args) == 0
    out = capsys.readouterr().out
    assert "12 euros" in out and "**" not in out and "[1] lamp.txt" in out
