"""Pilot tests: the chat says whether an answer is quoted or written-and-checked."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets import Markdown, OptionList, Static  # noqa: E402

from localcrag.tui.widgets.answer import TurnView  # noqa: E402
from localcrag.tui.widgets.trace import TracePanel  # noqa: E402
from tui_fakes import (SIZE, FakePipeline, answer_events, anyio_backend, ask, make_app,  # noqa: E402,F401
                       settle)

pytestmark = pytest.mark.anyio

QUOTE = "Artificial intelligence (AI) is the **simulation of human intelligence** by machines [1]."


def _label(view: TurnView) -> str:
    return str(view.query_one(".answer-style", Static).render())


async def test_a_quoted_answer_shows_its_label_and_citations(tmp_path: Path) -> None:
    pipe = FakePipeline(lambda q: answer_events(q, answer=QUOTE, style="extractive"))
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        assert view.done and _label(view) == "Quoted from your documents"
        source = view.query_one(".answer", Markdown).source
        assert "**simulation of human intelligence**" in source and "(cite:1)" in source
        sources = view.query_one(".sources", OptionList)
        assert sources.option_count == 2 and "AI_Information.pdf" in str(sources.get_option_at_index(0).prompt)
        trace = app.screen.query_one(TracePanel).state
        assert trace.style is not None and trace.style.style == "extractive"


async def test_a_written_answer_names_the_model_and_the_dropped_sentences(tmp_path: Path) -> None:
    pipe = FakePipeline(lambda q: answer_events(q, style="generative", dropped=2))
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        assert _label(view) == ("Written by SmolLM2-135M-Instruct, checked against your documents"
                                " · 2 unsupported sentences not shown")
