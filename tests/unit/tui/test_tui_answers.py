"""Pilot tests: the chat says whether an answer is quoted or written-and-checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown, OptionList, Static

from localcrag.tui.widgets.answer import TurnView
from localcrag.tui.widgets.trace import TracePanel
from tests.support.tui_fakes import (
    SIZE,
    FakePipeline,
    answer_events,
    ask,
    make_app,
    settle,
)

pytestmark = pytest.mark.anyio

QUOTE = "Artificial intelligence (AI) is the **simulation of human intelligence** by machines [1]."


async def _shown(tmp_path: Path, **script: object) -> dict:
    """Ask one question of a scripted run; what the chat and the trace then show."""
    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(lambda q: answer_events(q, **script)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        sources = view.query_one(".sources", OptionList)
        return {
            "done": view.done,
            "label": str(view.query_one(".answer-style", Static).render()),
            "answer": view.query_one(".answer", Markdown).source,
            "sources": [
                str(sources.get_option_at_index(i).prompt) for i in range(sources.option_count)
            ],
            "style": app.screen.query_one(TracePanel).state.style,
        }


async def test_a_quoted_answer_shows_its_label_and_citations(tmp_path: Path) -> None:
    shown = await _shown(tmp_path, answer=QUOTE, style="extractive")
    assert shown["done"] and shown["label"] == "Quoted from your documents"
    assert (
        "**simulation of human intelligence**" in shown["answer"] and "(cite:1)" in shown["answer"]
    )
    assert len(shown["sources"]) == 2 and "AI_Information.pdf, p. 3" in shown["sources"][0]
    assert shown["style"] is not None and shown["style"].style == "extractive"


async def test_a_written_answer_names_the_model_and_the_dropped_sentences(tmp_path: Path) -> None:
    shown = await _shown(tmp_path, style="generative", dropped=2)
    assert shown["label"] == (
        "Written by SmolLM2-135M-Instruct, checked against your documents"
        " · 2 unsupported sentences not shown"
    )


async def test_a_reopened_conversation_keeps_each_answers_label(tmp_path: Path) -> None:
    """The label is part of the answer: it comes back with the saved conversation."""
    from localcrag.history import History
    from localcrag.settings import Settings

    settings = Settings(models_dir=tmp_path / "models")
    history = History(settings.history_dir)
    await _shown(tmp_path, style="generative", dropped=1)  # saved to settings.history_dir
    app, _, _ = make_app(
        tmp_path,
        settings=settings,
        history=history,
        pipeline=FakePipeline(lambda q: answer_events(q)),
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        label = str(view.query_one(".answer-style", Static).render())
    assert view.done and label == (
        "Written by SmolLM2-135M-Instruct, checked against your documents"
        " · 1 unsupported sentence not shown"
    )
