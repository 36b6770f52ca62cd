"""The grader registry: its names and descriptions feed the `grader` setting and its help;
the factories of the same names build them (make_grader)."""

from __future__ import annotations

import typing

import pytest

from localcrag.crag.grade import make_grader
from localcrag.registry import GRADERS
from localcrag.settings import Settings, field
from localcrag.types import Chunk
from tests.support.fakes import FakeEmbedder

PARAGRAPH = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They were descended from Norse raiders and pirates from "
    "Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to "
    "King Charles III of West Francia."
)
QUESTION = "Who was the leader of the Norse raiders?"


def test_one_registry_feeds_the_setting_and_make_grader() -> None:
    assert typing.get_args(field("grader").info.annotation) == tuple(GRADERS)
    assert Settings().evaluator.grader == next(iter(GRADERS))
    from localcrag.crag.graders.factories import FACTORIES

    assert list(FACTORIES) == list(GRADERS)
    for name, spec in GRADERS.items():
        assert spec.description and name in (field("grader").info.description or "")
        assert callable(FACTORIES[name])
    help_text = field("grader").info.description or ""
    default = next(iter(GRADERS))
    assert f"(default: {default})" in help_text
    assert help_text.count("default") == 1  # no other grader calls itself the default
    with pytest.raises(ValueError, match="grader"):
        Settings(grader="nonsense")


def test_the_registry_keeps_only_graders_that_win_somewhere() -> None:
    """The cross, align and likelihood graders measured worse than fusion and the reader, and left."""
    assert set(GRADERS) == {"fusion", "reader", "embedding", "lexical", "llm"}


@pytest.mark.parametrize("name", ["fusion", "embedding", "lexical"])
def test_make_grader_builds_each_cheap_grader_by_name(name: str) -> None:
    g = make_grader(Settings(grader=name), FakeEmbedder())
    assert g.name == name
    (grade,) = g.grade(QUESTION, [Chunk("c0", "/docs/a.md", PARAGRAPH, 1, 1, 0, len(PARAGRAPH))])
    assert grade.error is None and 0.0 <= grade.score <= 1.0


def test_answer_styles_are_declared_once_for_the_setting_the_commands_and_the_pipeline() -> None:
    """The setting's choices, `ask --style` and `eval --style` read one declaration; a style
    the declaration lacks is refused by the pipeline and by the setting."""
    from localcrag.cli.args import Backends
    from localcrag.cli.main import build_parser
    from localcrag.registry import ANSWER_STYLES, WRITTEN_STYLES

    assert typing.get_args(field("answer_style").info.annotation) == ANSWER_STYLES
    assert set(WRITTEN_STYLES) < set(ANSWER_STYLES)
    parser = build_parser(Backends())
    for command, extra in (("ask", ()), ("eval", ("both",))):
        sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
        style = next(a for a in sub._actions if a.dest == "style")
        assert set(style.choices) == {*ANSWER_STYLES, *extra}, command
    with pytest.raises(ValueError):
        Settings(answer_style="poetic")
