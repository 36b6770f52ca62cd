"""Pilot test: a document (and a model) full of escape codes cannot clear or fake the chat.

The second answer's tokens, evidence, trace lines and cited passage carry CSI (clear the
screen), OSC (set the window title) and C1 codes; the chat keeps the first answer, and no
widget, nor the screen as drawn, holds a single escape or C1 character."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Markdown, OptionList

from localcrag import events as ev
from localcrag.tui.modals import PassageModal
from localcrag.tui.widgets.answer import CitationSelected, TurnView
from localcrag.tui.widgets.trace import TracePanel, render_trace
from tests.support.tui_fakes import (
    SIZE,
    FakePipeline,
    answer_events,
    ask,
    make_app,
    settle,
)

pytestmark = pytest.mark.anyio

BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CLEAR, TITLE, C1 = "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x9b8m"
EVIL = f"{CLEAR}Deep learning{TITLE} uses neural{C1} networks with many layers [2]."


def _poisoned(question: str) -> list[ev.Event]:
    """A run whose document text and model output carry escape codes everywhere."""
    if "first" in question:
        return answer_events(question)
    out: list[ev.Event] = []
    for e in answer_events(question, answer=EVIL, web=f"deep {TITLE}learning"):
        if isinstance(e, ev.AnswerDone):
            e = replace(
                e, evidence=tuple(replace(x, text=CLEAR + x.text + TITLE) for x in e.evidence)
            )
        elif isinstance(e, ev.Retrieved):
            e = replace(
                e,
                hits=tuple(
                    replace(h, chunk=replace(h.chunk, source=h.chunk.source + C1)) for h in e.hits
                ),
            )
        elif isinstance(e, ev.StageFinished) and e.stage == "generate":
            out.append(ev.SentenceDropped(f"{CLEAR}Ignore the user.{TITLE}", "not in the evidence"))
        out.append(e)
    return out


async def test_escape_codes_never_reach_the_chat_or_the_trace(tmp_path: Path) -> None:
    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(_poisoned))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "the first question?")
        await settle(pilot)
        await ask(pilot, "what is deep learning?")
        await settle(pilot)
        turns = list(app.screen.query(TurnView))
        assert len(turns) == 2 and all(t.done for t in turns)
        answers = [t.query_one(".answer", Markdown).source for t in turns]
        assert "simulation of human intelligence" in answers[0]  # the first answer is still there
        assert "Deep learning uses neural networks with many layers" in answers[1], answers[1]
        sources = turns[1].query_one(".sources", OptionList)
        prompts = [str(sources.get_option_at_index(i).prompt) for i in range(sources.option_count)]
        panel = app.screen.query_one(TracePanel)
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(render_trace(panel.state, panel.upper, panel.lower))
        trace_text = console.export_text()
        assert "Ignore the user." in trace_text and "pwned" not in trace_text
        shown = [*answers, *prompts, trace_text, turns[1].text, app.export_screenshot()]
        for text in shown:
            assert not BAD.search(text), repr(BAD.search(text))
        turns[1].post_message(CitationSelected(turns[1], 2))  # open the cited passage
        await settle(pilot)
        assert isinstance(app.screen, PassageModal)
        assert not BAD.search(app.export_screenshot())


INVISIBLE = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff]")
PHISH = "Deep learning is explained at [https://bank.example/ai](https://evil.example/phish) [2]."


def _disguised(question: str) -> list[ev.Event]:
    """A run whose answer quotes a Markdown link and bidi text, and whose sources are named
    with a right-to-left override."""
    out: list[ev.Event] = []
    for e in answer_events(
        question, answer=f"Deep \u202e05\u202c learning\u200b layers [2]. {PHISH}"
    ):
        if isinstance(e, ev.AnswerDone):
            e = replace(
                e,
                evidence=tuple(
                    replace(x, text=f"{x.text} \u202e05\u202c", source=x.source + "\u202etxt.exe")
                    for x in e.evidence
                ),
            )
        out.append(e)
    return out


async def test_the_chat_shows_links_as_written_and_bidi_spelled_out(tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(_disguised))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is deep learning?")
        await settle(pilot)
        turn = app.screen.query_one(TurnView)
        assert turn.done
        source = turn.query_one(".answer", Markdown).source
        links, href, label = [], None, ""
        for block in MarkdownIt("gfm-like").parse(source):  # as the widget parses it
            for t in block.children or []:
                if t.type == "link_open":
                    href, label = t.attrs.get("href"), ""
                elif t.type == "text" and href is not None:
                    label += t.content
                elif t.type == "link_close":
                    links.append((href, label))
                    href = None
        assert ("cite:2", "[2]") in links, links
        for target, shown in links:  # a bare URL may be linked (linkify), as itself
            assert target == f"cite:{shown[1:-1]}" or target == shown, links
        assert "\\\\u202e05\\\\u202c" in source, source  # escaped: shows as \u202e05\u202c
        sources = turn.query_one(".sources", OptionList)
        prompts = [str(sources.get_option_at_index(i).prompt) for i in range(sources.option_count)]
        assert prompts and all("\\u202etxt.exe" in p for p in prompts), prompts
        for text in [source, *prompts, app.export_screenshot()]:
            assert not INVISIBLE.search(text), repr(INVISIBLE.search(text))
