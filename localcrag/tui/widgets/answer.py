"""One question and its streamed, cited answer.

Tokens go through a MarkdownStream (which batches fragments that arrive faster than the
widget can render). When the answer is done the text is re-rendered once with every [n]
turned into a link, and the cited passages are listed below it as a selectable list.
Everything else that Markdown reads as a link, image, HTML or character reference is
escaped first (``textutil.unlinked``): a document's ``[bank](https://evil.example)`` shows
as written, so the only links are the app's own citations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.markdown import MarkdownStream
from textual.widgets.option_list import Option

from localcrag import events as ev
from localcrag.crag.answer.style import style_label
from localcrag.textutil import (
    document_named,
    source_label,
    states_nothing,
    terminal_safe,
    unlinked,
)
from localcrag.tui.widgets.labels import BADGE, plural, safe_fields
from localcrag.types import Action, Evidence

_CITE = re.compile(r"(?<!\\)\\\[(\d{1,3})\]")  # [n] as ``unlinked`` escapes it


def link_citations(text: str, valid: Iterable[int]) -> str:
    """``text`` as Markdown with nothing linked but [n], which becomes a link the app can
    intercept (cite:n); unknown numbers stay text."""
    ok = set(valid)
    return _CITE.sub(
        lambda m: f"[\\[{m[1]}\\]](cite:{m[1]})" if int(m[1]) in ok else m[0], unlinked(text)
    )


def quotes_by_n(text: str) -> dict[int, list[str]]:
    """Each [n] of a quoted answer and every run of words quoted before it (bold and a cut's
    "…" removed): what the source view highlights in passage n."""
    out: dict[int, list[str]] = {}
    for m in re.finditer(r"([^\[\]]+?)\s*((?:\[\d+\])+)", text):
        quote = " ".join(m.group(1).replace("**", "").split("…")[0].split()).lstrip(".!?:; ")
        for n in re.findall(r"\d+", m.group(2)):
            out.setdefault(int(n), []).append(quote)
    return out


def quoted_from(text: str) -> dict[int, str]:
    """Each [n] of a quoted answer and the first words quoted before it, so its source line
    can start there instead of at the evidence's first words."""
    return {n: quotes[0] for n, quotes in quotes_by_n(text).items()}


class CitationSelected(Message):
    """The user picked citation ``n`` of ``turn`` (from the answer text or the sources list)."""

    def __init__(self, turn: TurnView, n: int) -> None:
        super().__init__()
        self.turn, self.n = turn, n


class TurnView(Vertical):
    """A question, its answer (streaming, then final) and the passages it cites."""

    def __init__(self, question: str, *, rewritten: str | None = None) -> None:
        super().__init__(classes="turn")
        self.question = terminal_safe(question)
        self.rewritten = terminal_safe(rewritten) if rewritten else rewritten
        self.undo_hint = False  # the live turn says which key asks the question as typed
        self.within = ""  # the document the question named and was asked within
        self._status: tuple[str | Text, str] = ("", "")
        self.evidence: dict[int, Evidence] = {}  # n -> item (its chunk_id opens the passage)
        self.text = ""
        self.done = False
        self._stream: MarkdownStream | None = None
        self.model = ""  # the generator's name, from StyleChosen
        self.style: str | None = (
            None  # "extractive" / "generative" once known (the passage view says which)
        )

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(("❯ ", "bold #90caf9"), (self.question, "bold")), classes="question"
        )
        yield Static("", classes="turn-status")
        yield Static("", classes="answer-style")
        yield Markdown("", open_links=False, classes="answer")
        yield OptionList(classes="sources")
        yield Static("", classes="searched")

    def on_mount(self) -> None:
        self.query_one(".sources", OptionList).display = False
        self.query_one(".searched", Static).display = False
        if self.rewritten:
            self.set_status("")

    def set_status(self, status: str | Text, style: str = "italic #90caf9") -> None:
        self._status = (status, style)
        text = Text()
        if self.rewritten and self.rewritten != self.question:
            text.append(f"↳ understood as: {self.rewritten}", style="dim italic")
            text.append("  (ctrl+z: ask as typed)\n" if self.undo_hint else "\n", style="#fdd835")
        if self.within:
            text.append(f"↳ asked within {self.within}: the question names it", style="dim italic")
            text.append(
                "  (ctrl+b: ask every document)\n" if self.undo_hint else "\n", style="#fdd835"
            )
        text.append_text(status) if isinstance(status, Text) else text.append(status, style=style)
        self.query_one(".turn-status", Static).update(text)

    def drop_undo_hint(self) -> None:
        if self.undo_hint:
            self.undo_hint = False
            self.set_status(*self._status)

    def on_stage(self, event: ev.StageStarted | ev.StyleChosen, stage_text: dict[str, str]) -> None:
        """The running stage in the status line; what the answer will be, above it."""
        if isinstance(event, ev.StyleChosen):
            self.model = event.model
            self.set_style(event.style)
        else:
            self.set_status(
                f"{event.detail}…"
                if event.detail
                else stage_text.get(event.stage, f"{event.stage}…")
            )

    def set_style(self, style: str | None, web: bool = False, dropped: int = 0) -> None:
        """ "Quoted from your documents" / "Written by <model>, checked against ..." (or nothing)."""
        self.style = style or self.style
        label = style_label(style, self.model, web) if style else ""
        if label and dropped:
            label += f" · {plural(dropped, 'unsupported sentence')} not shown"
        self.query_one(".answer-style", Static).update(Text(label, style="italic #a5d6a7"))

    async def write(self, fragment: str) -> None:
        fragment = terminal_safe(fragment)
        self.text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(".answer", Markdown))
        await self._stream.write(unlinked(fragment))  # char by char: safe in any cut

    async def restart(self) -> None:
        """The answer starts over (the model server died mid-answer, or no passage stated it
        and the web's results answer): what was shown goes, the new answer follows."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.text = ""
        await self.query_one(".answer", Markdown).update("")

    async def finish(
        self,
        text: str,
        evidence: Sequence[Evidence],
        cited: Sequence[int],
        action: Action | None,
        *,
        refused: bool = False,
        cancelled: bool = False,
        style: str | None = None,
        dropped: int = 0,
        searched: str = "",
        inferred: bool = False,
    ) -> None:
        """Show the final text with linked citations and list the cited passages (``cited``:
        ``RunRecord.sources``, ``inferred`` when that is the closest evidence, not a [n] in
        the text); under an answer that claims nothing, ``searched`` says what was searched
        (``RunRecord.searched``)."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.done = True
        text, evidence = (
            terminal_safe(text),
            safe_fields(tuple(evidence)),
        )  # a saved turn too
        self.text = text or self.text
        self.evidence = {e.n: e for e in evidence}
        body = self.text if self.text.strip() else "_(no answer was written)_"
        await self.query_one(".answer", Markdown).update(link_citations(body, self.evidence))
        nothing = refused or states_nothing(self.text)
        self._fill_sources(
            [] if nothing else sorted({n for n in cited if n in self.evidence}),
            quoted_from(self.text) if style == "extractive" else {},
            inferred,
        )
        line = self.query_one(".searched", Static)
        line.update(Text(terminal_safe(searched), style="dim"))  # names the closest file
        line.display = bool(nothing and searched)
        self.set_status(_status(action, nothing, cancelled, len(cited)))
        web = any(e.kind == "web" for n, e in self.evidence.items() if n in cited)
        self.set_style(None if refused or not style else style, web, dropped)

    def _fill_sources(
        self, cited: list[int], quotes: dict[int, str], inferred: bool = False
    ) -> None:
        listing = self.query_one(".sources", OptionList)
        shown = cited
        options = []
        for n in shown:
            e = self.evidence[n]
            snippet = " ".join(e.text.split())
            at = snippet.find(quotes.get(n) or "\0")
            snippet = snippet[at:] if at >= 0 else snippet  # a quoted answer: from its quote
            snippet = snippet if len(snippet) <= 90 else snippet[:89].rstrip() + "…"
            label = Text.assemble(
                (f"[{n}] ", "bold #90caf9"),
                (source_label(e.source, e.page, url=e.url, locator=e.locator), "bold"),
                (f" ({named})" if (named := document_named(e.source, e.heading)) else "", "bold"),
                ("  " + snippet, "dim"),
                no_wrap=True,
                overflow="ellipsis",
            )
            options.append(Option(label, id=str(n)))
        listing.clear_options()
        listing.add_options(options)
        listing.border_title = (
            "Source: not cited in the text, the passage it shares most words with (Enter opens)"
            if inferred
            else "Sources (Enter opens)"
        )
        listing.display = bool(options)

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith("cite:") and event.href[5:].isdigit():
            self.post_message(CitationSelected(self, int(event.href[5:])))

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id.isdigit():
            self.post_message(CitationSelected(self, int(event.option.id)))


def _status(action: Action | None, refused: bool, cancelled: bool, cited: int) -> Text:
    text = Text()
    if action is not None:
        label, style = BADGE[action]
        text.append(f" {label} ", style=style)
        text.append("  ")
    if cancelled:
        text.append("⏹ cancelled: partial answer", style="#fdd835")
    elif refused:
        text.append("no answer from your documents", style="#ef9a9a")
    else:
        text.append(
            f"{plural(cited, 'source')} cited" if cited else "no citations",
            style="dim",
        )
    return text
