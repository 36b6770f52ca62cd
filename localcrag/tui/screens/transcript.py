"""The reading side of the chat screen: the conversation on screen and its sources.

Reopening, switching and starting conversations, following the newest text, and opening
a cited passage by its chunk id. The asking side (the question box, the pipeline worker,
the web-consent dialog) is :class:`localcrag.tui.screens.chat.ChatScreen`, built on this.
"""

from __future__ import annotations

from textual import on, work
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Markdown, OptionList

from localcrag.errors import describe_error
from localcrag.history import Conversation
from localcrag.tui.messages import ShowPassage
from localcrag.tui.modals import ConversationChoice, ConversationsModal, PassageModal
from localcrag.tui.widgets.answer import CitationSelected, TurnView, quotes_by_n
from localcrag.tui.widgets.trace import TracePanel
from localcrag.tui.widgets.welcome import welcome_markdown
from localcrag.types import Action, Evidence


class TranscriptScreen(Screen):
    """Shows a conversation (``#conversation``) and the trace (``TracePanel``); the
    subclass composes them and sets ``conversation``."""

    conversation: Conversation | None = None

    def _busy(self) -> bool:
        """True (and says so) when an answer is being written: the subclass knows."""
        return False

    # --- conversations ------------------------------------------------------------------

    async def show_conversation(self, conv: Conversation | None) -> None:
        """Render a saved conversation (or an empty one with the welcome text)."""
        self.conversation = conv
        self.app.conversation_title = conv.title if conv else ""
        self.app.backend.history.set_current(conv.id if conv else None)
        box = self.query_one("#conversation", VerticalScroll)
        box.anchor(False)
        await box.remove_children()
        trace = self.query_one(TracePanel)
        trace.reset()
        if conv is None or not conv.turns:
            await box.mount(Markdown(welcome_markdown(self.app), id="welcome"))
            return
        for turn in conv.turns:
            view = TurnView(turn.question, rewritten=turn.rewritten)
            view.model = turn.model
            await box.mount(view)
            await view.finish(
                turn.answer,
                turn.evidence_items(),
                [c["n"] for c in turn.citations],
                Action(turn.action) if turn.action else None,
                refused=turn.refused,
                cancelled=turn.cancelled,
                style=turn.style,
                dropped=turn.dropped,
                searched=turn.searched,
                inferred=turn.inferred,
            )
        self.call_after_refresh(self._follow)
        last = conv.turns[-1]
        trace.reset(last.question)
        trace.state.rewritten = last.rewritten
        trace.set_note("Reopened conversation: ask a question to see a live trace.")

    async def _refresh_welcome(self) -> None:
        for welcome in self.query("#welcome").results(Markdown):
            await welcome.update(welcome_markdown(self.app))

    def action_new_conversation(self) -> None:
        if self._busy():
            return
        self.run_worker(self.show_conversation(None), exclusive=True, group="show")
        self.query_one("#question", Input).focus()

    def action_conversations(self) -> None:
        if self._busy():
            return
        current = self.conversation.id if self.conversation else None
        self.app.push_screen(ConversationsModal(self.app.backend.history, current), self._chosen)

    async def _chosen(self, choice: ConversationChoice | None) -> None:
        if choice is None:
            return
        current = self.conversation.id if self.conversation else None
        if choice.new or (current in choice.deleted and not choice.open_id):
            await self.show_conversation(None)
        elif choice.open_id and choice.open_id != current:
            try:
                await self.show_conversation(self.app.backend.history.load(choice.open_id))
            except Exception as exc:  # noqa: BLE001 - a damaged file is one line
                self.notify(describe_error(exc)[0], severity="error")

    def _follow(self) -> None:
        """Keep the newest text in view (until the user scrolls up), but only once the
        conversation overflows: an anchored short conversation would hug the bottom."""
        box = self.query_one("#conversation", VerticalScroll)
        if not box.is_anchored and box.max_scroll_y > 0:
            box.anchor()

    # --- citations and panes ------------------------------------------------------------

    @on(CitationSelected)
    def _cite(self, msg: CitationSelected) -> None:
        evidence = msg.turn.evidence.get(msg.n)
        if evidence is None:
            self.notify(f"[{msg.n}] is not one of this answer's sources.", severity="warning")
            return
        style = msg.turn.style
        quoted = quotes_by_n(msg.turn.text).get(msg.n, []) if style == "extractive" else []
        if evidence.chunk_id:
            self._lookup(
                evidence, evidence.chunk_id, style, quoted
            )  # the exact passage, from the library
        else:  # web results, and conversations saved before chunk ids were stored
            self.app.push_screen(PassageModal(evidence, None, style, quoted), self._passage_closed)

    @work(thread=True, group="lookup", exit_on_error=False)
    def _lookup(
        self,
        evidence: Evidence,
        chunk_id: str,
        style: str | None = None,
        quoted: list[str] | None = None,
    ) -> None:
        try:
            chunk = self.app.backend.library().get_chunk(chunk_id)
        except Exception:  # noqa: BLE001 - the stored evidence text is still shown
            chunk = None
        self.post_message(ShowPassage(evidence, chunk, style, quoted))

    @on(ShowPassage)
    def _show_passage(self, msg: ShowPassage) -> None:
        self.app.push_screen(
            PassageModal(msg.evidence, msg.chunk, msg.style, msg.quoted), self._passage_closed
        )

    def _passage_closed(self, _: None = None) -> None:
        """Back to the question box: typing goes there, and Enter does not reopen the passage."""
        self.query_one("#question", Input).focus()

    def action_sources(self) -> None:
        lists = [o for o in self.query(".sources").results(OptionList) if o.display]
        if not lists:
            self.notify("No answer with sources yet.")
            return
        lists[-1].focus()
        if lists[-1].highlighted is None:
            lists[-1].highlighted = 0
        lists[-1].scroll_visible()

    def action_toggle_trace(self) -> None:
        trace = self.query_one(TracePanel)
        trace.display = not trace.display
