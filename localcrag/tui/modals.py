"""Modal dialogs: web-search consent, a cited passage, confirmations, conversations, errors.

Each returns its answer through ``dismiss`` so callers use ``push_screen(modal, callback)``;
Escape always means the safe choice (deny, close, cancel).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from localcrag.history import Conversation, Damaged, History
from localcrag.ingest.overview import Overview
from localcrag.textutil import source_label, terminal_safe
from localcrag.textutil.labels import DOCUMENT, split_heading
from localcrag.tui.widgets.labels import plural, safe_fields
from localcrag.types import Chunk, Evidence

HIGHLIGHT = "bold #000000 on #d7af5f"


class WebConsentModal(ModalScreen[str | None]):
    """Shows the exact query before anything leaves the machine: once / always / never."""

    BINDINGS = [
        Binding("y", "choose('once')", "Allow once"),
        Binding("a", "choose('always')", "Always"),
        Binding("n", "choose('never')", "Never"),
        Binding("escape", "choose(None)", "Not now"),
    ]

    def __init__(self, query: str) -> None:
        super().__init__(classes="modal")
        self.query_text = terminal_safe(query)  # a model may have written it

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="web-consent"):
            yield Label("Search the web?", classes="dialog-title")
            yield Static(
                "Your documents do not answer this well enough. localcrag can ask "
                "DuckDuckGo — only this exact query leaves your machine:"
            )
            yield Static(Text(self.query_text, style="bold"), id="web-query")
            with Horizontal(classes="buttons"):
                yield Button("Allow once (y)", id="once", variant="primary")
                yield Button("Always (a)", id="always")
                yield Button("Never (n)", id="never", variant="error")
                yield Button("Not now (Esc)", id="deny")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "deny" else event.button.id)

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)


def highlight_passage(full: str, excerpt: str) -> tuple[Text, bool]:
    """The full chunk with each part of the (refined) excerpt highlighted where it occurs."""
    text, found = Text(full), False
    for part in excerpt.split("…"):
        words = part.split()
        if not words:
            continue
        m = re.search(r"\s+".join(re.escape(w) for w in words), full)
        if m:
            text.stylize(HIGHLIGHT, m.start(), m.end())
            found = True
    return text, found


def passage_view(chunk: Chunk, excerpt: str, label: str) -> tuple[str | None, Text, bool]:
    """The heading line, highlighted body and whether the excerpt was found, with the
    heading shown once: a chunk that opens with its section's heading loses that first
    line (the heading line above says it), and the heading line is left out when the
    label already names that section (a .docx 'section "Budget"')."""
    body, found = highlight_passage(chunk.text, excerpt)
    heading = (chunk.heading or "").removesuffix(DOCUMENT.rstrip()).strip()
    if not heading:
        return None, body, found
    title = (split_heading(heading)[1] or heading).rsplit(" > ", 1)[-1]
    m = re.match(r"\s*" + re.escape(title) + r"\s*(?:\n|$)\s*", chunk.text)
    if m and m.end() < len(chunk.text):
        body = body[m.end() :]
    return (None if f'"{heading}"' in label else heading), body, found


_USED = {
    "extractive": "the text the answer quotes from (no model read it)",
    "generative": "the part given to the model",
}
QUOTED = "the sentences the answer quotes (no model read them)"


class PassageModal(ModalScreen[None]):
    """The cited passage: file, page and text, with the part the answer used highlighted."""

    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]

    def __init__(
        self,
        evidence: Evidence,
        chunk: Chunk | None,
        style: str | None = None,
        quoted: Sequence[str] = (),
    ) -> None:
        super().__init__(classes="modal")
        # the passage as stored, shown without its escape sequences or control characters
        self.evidence, self.chunk = safe_fields(evidence), safe_fields(chunk)
        self.quoted = [terminal_safe(q) for q in quoted]
        self.used = _USED.get(style or "", "the evidence the answer was drawn from")

    def compose(self) -> ComposeResult:
        e, c = self.evidence, self.chunk
        with Vertical(classes="dialog", id="passage"):
            if e.kind == "web":
                yield Label(Text(f"[{e.n}] web result"), classes="dialog-title")
                yield Static(Text(e.url or e.source, style="underline #90caf9"))
                body, found = Text(e.text), True
            else:
                label = (
                    source_label(e.source, c.page_start, last_page=c.page_end, locator=c.locator)
                    if c
                    else source_label(e.source, e.page, locator=e.locator)
                )
                yield Label(Text(f"[{e.n}] {label}"), classes="dialog-title")
                yield Static(Text(e.source, style="dim"))
                heading, body, found = (
                    passage_view(c, e.text, label)
                    if c
                    else (None, Text(e.text, style=HIGHLIGHT), True)
                )
                if self.quoted:  # a quoted answer: only its sentences, where they are found
                    joined = "…".join(self.quoted)
                    q_heading, q_body, q_found = (
                        passage_view(c, joined, label)
                        if c
                        else (None, *highlight_passage(e.text, joined))
                    )
                    if q_found:
                        heading, body, self.used = q_heading, q_body, QUOTED
                if heading:
                    yield Static(Text(heading, style="italic"))
            if not found:
                yield Static(Text.assemble(("Used: ", "bold"), (e.text, HIGHLIGHT)))
            with VerticalScroll(id="passage-body"):
                yield Static(body)
            yield Static(Text(f"highlighted: {self.used} · Esc closes", style="dim"))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)


class ConfirmModal(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("escape,n", "answer(False)", "No")]

    def __init__(self, question: str, yes: str = "Yes", cancel: str = "Cancel") -> None:
        super().__init__(classes="modal")
        self.question, self.yes, self.cancel = question, yes, cancel

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(terminal_safe(self.question)))  # names files: never markup
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button(f"{self.cancel} (Esc)", id="no")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class MessageModal(ModalScreen[None]):
    """A problem the user must read (e.g. missing models): what happened and what to do."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close")]

    def __init__(self, title: str, message: str) -> None:
        super().__init__(classes="modal")
        self.title_text, self.message = title, message

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(terminal_safe(self.title_text)), classes="dialog-title")
            yield Static(Text(terminal_safe(self.message)))  # quotes files and values: no markup
            with Horizontal(classes="buttons"):
                yield Button("OK (Enter)", id="ok", variant="primary")

    @on(Button.Pressed)
    def action_close(self) -> None:
        self.dismiss(None)


@dataclass
class ConversationChoice:
    open_id: str | None = None  # conversation to open
    new: bool = False
    deleted: list[str] = field(default_factory=list)


class ConversationsModal(ModalScreen[ConversationChoice]):
    """Switch conversation (Enter), start a new one (n) or delete one (d)."""

    BINDINGS = [
        Binding("n", "new", "New"),
        Binding("d,delete", "delete", "Delete"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, history: History, current: str | None) -> None:
        super().__init__(classes="modal")
        self.history, self.current = history, current
        self.choice = ConversationChoice()
        self.damaged: dict[str, Damaged] = {}  # id -> the file that could not be read

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="conversations"):
            yield Label("Conversations", classes="dialog-title")
            yield OptionList(id="conversation-list")
            yield Static(Text("Enter open · n new · d delete · Esc close", style="dim"))

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        listing = self.query_one(OptionList)
        listing.clear_options()
        convs, damaged = self.history.scan()
        self.damaged = {d.id: d for d in damaged}
        for conv in convs:
            listing.add_option(
                Option(_conversation_label(conv, conv.id == self.current), id=conv.id)
            )
        for bad in self.damaged.values():  # shown, never hidden: the user can delete or fix it
            listing.add_option(
                Option(
                    Text.assemble(
                        ("⚠ ", "#fdd835"),
                        (bad.path.name, "bold"),
                        ("  damaged: cannot be read · d deletes it", "dim"),
                    ),
                    id=bad.id,
                )
            )
        if not listing.option_count:
            listing.add_option(
                Option(Text("No saved conversations yet", style="dim"), disabled=True)
            )
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        if self.current in ids:  # start on the open chat, so the first Down goes to another one
            listing.highlighted = ids.index(self.current)

    @on(OptionList.OptionSelected)
    def _open(self, event: OptionList.OptionSelected) -> None:
        if (bad := self.damaged.get(event.option.id or "")) is not None:
            self.app.notify(f"{bad.error}: delete it (d) or repair it by hand", severity="warning")
            return
        self.choice.open_id = event.option.id
        self.dismiss(self.choice)

    def action_new(self) -> None:
        self.choice.new = True
        self.dismiss(self.choice)

    def action_delete(self) -> None:
        listing = self.query_one(OptionList)
        if listing.highlighted is None:
            return
        conv_id = listing.get_option_at_index(listing.highlighted).id
        if conv_id and self.history.delete(conv_id):
            self.choice.deleted.append(conv_id)
            self._fill()

    def action_close(self) -> None:
        self.dismiss(self.choice)


def _conversation_label(conv: Conversation, current: bool) -> Text:
    when = (
        dt.datetime.fromtimestamp(conv.updated).strftime("%Y-%m-%d %H:%M") if conv.updated else ""
    )
    return Text.assemble(
        ("● " if current else "  ", "#66bb6a"),
        (conv.title or "(empty)", "bold"),
        (f"  {plural(len(conv.turns), 'turn')} · {when}", "dim"),
    )


class OverviewModal(ModalScreen[bool]):
    """A document's overview (ingest/overview.py), as "what is it about?" answers it;
    ``q`` closes it and asks about this document only (True)."""

    BINDINGS = [
        Binding("escape,enter", "dismiss(False)", "Close"),
        Binding("q", "dismiss(True)", "Ask about it"),
    ]

    def __init__(self, overview: Overview) -> None:
        super().__init__(classes="modal")
        self.overview = overview

    def compose(self) -> ComposeResult:
        from localcrag.crag.documents import overview_answer

        o = safe_fields(self.overview)
        text, _, _ = overview_answer(o, Path(o.source).name)
        with Vertical(classes="dialog", id="overview"):
            yield Label(Text(f"Overview: {Path(o.source).name}"), classes="dialog-title")
            yield Static(Text(o.source, style="dim"))
            with VerticalScroll(id="overview-body"):
                yield Markdown(text)
            with Horizontal(classes="buttons"):
                yield Button("Ask about it (q)", id="ask", variant="primary")
                yield Button("Close (Esc)", id="close")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "ask")
