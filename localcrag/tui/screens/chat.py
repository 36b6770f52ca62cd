"""The chat screen: ask, watch the answer stream in with citations, and the CRAG trace beside it.

Two sides of one screen: asking (the question box, the pipeline worker, the web-consent
dialog) and reading (reopening, switching and starting conversations, following the newest
text, opening a cited passage by its chunk id).

The pipeline runs in a thread worker and every event it yields is posted back as a
message, so typing, scrolling and switching screens stay responsive while it runs.
"""

from __future__ import annotations

import itertools
import queue
import threading
from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Markdown, OptionList, Static

from localcrag import events as ev
from localcrag.crag.web import SKIP_DECLINED, SKIP_DNS, SKIP_EMPTY
from localcrag.errors import EmptyIndex, describe_error
from localcrag.history import Conversation, Turn
from localcrag.textutil import shown
from localcrag.tui.host import AppHost, app_host
from localcrag.tui.messages import (
    ConsentRequest,
    PipelineEvent,
    RefreshSources,
    RunEnded,
    ShowPassage,
)
from localcrag.tui.modals import (
    ConversationChoice,
    ConversationsModal,
    PassageModal,
    WebConsentModal,
)
from localcrag.tui.widgets.answer import CitationSelected, TurnView, quotes_by_n
from localcrag.tui.widgets.labels import plural, safe_fields
from localcrag.tui.widgets.status import StatusBar
from localcrag.tui.widgets.trace import TracePanel
from localcrag.tui.widgets.welcome import welcome_markdown
from localcrag.types import Action, Evidence, Scope

ONLINE_SKIPS = {SKIP_DECLINED, SKIP_EMPTY}  # skipped after the DNS check passed

STAGE_TEXT = {
    "load": "loading the models…",
    "rewrite": "reading the follow-up in context…",
    "retrieve": "searching your documents…",
    "grade": "grading the passages…",
    "refine": "keeping the relevant sentences…",
    "web": "searching the web…",
    "generate": "writing the answer…",
}
_ids = itertools.count(1)


@dataclass
class Run:
    """One question in flight; events from older runs are ignored by id."""

    question: str
    view: TurnView
    history: list[tuple[str, str]]
    cancel: threading.Event = field(default_factory=threading.Event)
    id: int = field(default_factory=lambda: next(_ids))
    rewritten: str | None = None
    finished: bool = False
    rewrite: bool = True  # False: asked as typed (the undo of a follow-up rewrite)
    scope: Scope | None = None  # the documents it is asked within (None: all)
    named_scope: bool = True  # False: every document, though the question names one


class ChatScreen(Screen):
    BINDINGS = [
        Binding(
            "escape",
            "cancel",
            "Cancel",
            tooltip="Cancel the answer being written (or go back to the question box)",
        ),
        Binding("ctrl+n", "new_conversation", "New", tooltip="Start a new conversation"),
        Binding(
            "ctrl+o", "conversations", "Chats", tooltip="Switch to, or delete, a saved conversation"
        ),
        Binding(
            "ctrl+r",
            "sources",
            "Sources",
            tooltip="Go to the latest answer's sources (Enter opens one)",
        ),
        Binding(
            "ctrl+t",
            "toggle_trace",
            "Trace",
            show=False,
            tooltip="Show or hide the CRAG trace panel",
        ),
        Binding(
            "ctrl+b",
            "clear_scope",
            "All docs",
            tooltip="Ask all documents again (clears the documents chosen with Ask about in "
            "the Library)",
        ),
        Binding(
            "ctrl+z",
            "undo_rewrite",
            "As typed",
            show=False,
            tooltip="Ask the last question again as typed, without the follow-up rewrite",
        ),
    ]

    @property
    def host(self) -> AppHost:
        """The app, with its localcrag members typed (``tui/host.py``)."""
        return app_host(self)

    def __init__(self) -> None:
        super().__init__()
        self.run: Run | None = None
        self.conversation: Conversation | None = None
        self.last_rewrite: tuple[str, TurnView] | None = None  # (question as typed, its view)
        self.last_named: tuple[str, TurnView] | None = None  # asked within a document it named

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="chat-main"):
            with Vertical(id="chat-pane"):
                yield VerticalScroll(id="conversation")
                yield Static("", id="scope-bar")
                yield Input(
                    placeholder="Ask about your documents (Enter asks, Esc cancels)", id="question"
                )
            yield TracePanel(id="trace")
        yield StatusBar()
        yield Footer()

    async def on_mount(self) -> None:
        for name in ("sources", "library_ready", "previous_sources", "demo_active"):
            self.watch(self.app, name, self._refresh_welcome, init=False)
        self.watch(self.app, "scope", self._show_scope)
        try:
            await self.show_conversation(self.host.backend.history.current())
        except Exception as exc:  # noqa: BLE001 - a damaged history never stops the app
            self.notify(
                f"The last conversation could not be reopened: {describe_error(exc)[0]}",
                severity="warning",
            )
            await self.show_conversation(None)
        self.query_one("#question", Input).focus()

    def _show_scope(self) -> None:
        """The line above the question box while questions are asked within documents."""
        scope = self.host.scope
        bar = self.query_one("#scope-bar", Static)
        bar.display = scope is not None
        if scope is not None:
            bar.update(
                Text.assemble(
                    ("Asking within: ", "bold"),
                    shown(scope.label),
                    f" ({plural(scope.passages, 'passage')})  ",
                    ("ctrl+b asks all documents", "italic #90caf9"),
                )
            )
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_scope":
            return self.host.scope is not None or self.last_named is not None
        return True

    async def action_clear_scope(self) -> None:
        """Ask every document again: the documents chosen in the Library, or (none chosen)
        the last question once more, without the document it named."""
        if self.host.scope is not None:
            self.host.ask_within(None)
            self.notify("Questions search all your documents again.")
        elif self.last_named is not None and not self._busy():
            await self.ask(self.last_named[0], named_scope=False)

    def on_unmount(self) -> None:
        if self.run is not None:
            self.run.cancel.set()

    def _busy(self) -> bool:
        if self.run is not None:
            self.notify(
                "An answer is still being written; press Esc to cancel it first.",
                severity="warning",
            )
            return True
        return False

    # --- conversations ------------------------------------------------------------------

    async def show_conversation(self, conv: Conversation | None) -> None:
        """Render a saved conversation (or an empty one with the welcome text). As typed
        (ctrl+z) applies to the latest turn on screen: not to one of another conversation."""
        self.last_rewrite = None
        self.conversation = conv
        self.host.conversation_title = conv.title if conv else ""
        self.host.backend.history.set_current(conv.id if conv else None)
        box = self.query_one("#conversation", VerticalScroll)
        box.anchor(False)
        await box.remove_children()
        trace = self.query_one(TracePanel)
        trace.reset()
        if conv is None or not conv.turns:
            await box.mount(Markdown(welcome_markdown(self.host), id="welcome"))
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
            await welcome.update(welcome_markdown(self.host))

    def action_new_conversation(self) -> None:
        if self._busy():
            return
        self.run_worker(self.show_conversation(None), exclusive=True, group="show")
        self.query_one("#question", Input).focus()

    def action_conversations(self) -> None:
        if self._busy():
            return
        current = self.conversation.id if self.conversation else None
        self.app.push_screen(ConversationsModal(self.host.backend.history, current), self._chosen)

    async def _chosen(self, choice: ConversationChoice | None) -> None:
        if choice is None:
            return
        current = self.conversation.id if self.conversation else None
        if choice.new or (current in choice.deleted and not choice.open_id):
            await self.show_conversation(None)
        elif choice.open_id and choice.open_id != current:
            try:
                await self.show_conversation(self.host.backend.history.load(choice.open_id))
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
            chunk = self.host.backend.library().get_chunk(chunk_id)
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

    # --- asking -------------------------------------------------------------------------

    @on(Input.Submitted, "#question")
    async def _submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if not question or self._busy():
            return
        event.input.value = ""
        await self.ask(question)

    async def ask(self, question: str, rewrite: bool = True, named_scope: bool = True) -> None:
        for last in (self.last_rewrite, self.last_named):
            if last is not None:
                last[1].drop_undo_hint()
        self.last_rewrite = self.last_named = None
        box = self.query_one("#conversation", VerticalScroll)
        await box.query("#welcome").remove()
        view = TurnView(question)
        await box.mount(view)
        box.scroll_end(animate=False)
        ready = self.host.backend.ready.is_set()
        view.set_status(STAGE_TEXT["retrieve"] if ready else "waiting for the models to load…")
        s = self.host.settings
        self.query_one(TracePanel).reset(
            question, s.evaluator.upper_threshold, s.evaluator.lower_threshold
        )
        history = self.conversation.pairs(limit=6) if self.conversation else []
        self.run = Run(
            question, view, history, rewrite=rewrite, scope=self.host.scope, named_scope=named_scope
        )
        self._ask(self.run)

    @work(thread=True, group="ask", exit_on_error=False)
    def _ask(self, run: Run) -> None:
        backend = self.host.backend
        try:
            while not backend.ready.wait(0.1):
                if run.cancel.is_set():
                    self.post_message(RunEnded(run.id))
                    return
            if backend.sync_index():  # ingested from outside since the last look: see it now
                self.app.post_message(RefreshSources())
            events = backend.pipeline().run(
                run.question,
                history=run.history or None,
                confirm_web=lambda q: self._confirm_web(q, run.cancel),
                cancel=run.cancel,
                rewrite=run.rewrite,
                scope=run.scope,
                named_scope=run.named_scope,
            )
            for event in events:
                self.post_message(PipelineEvent(run.id, event))
            self.post_message(RunEnded(run.id))
        except EmptyIndex:  # the core's hint names a CLI command: the UI says which keys fix it
            self.post_message(RunEnded(run.id, empty_index=True))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a notification
            self.post_message(RunEnded(run.id, *describe_error(exc)))

    def _confirm_web(self, query: str, cancel: threading.Event) -> bool:
        """Called by the pipeline on the worker thread: ask in a modal, wait for the choice.

        The request goes to the UI as a message (never blocking on the event loop), the
        modal's callback answers through a queue, and cancel (Esc, quit) means deny.
        """
        s = self.host.settings
        if s.web.offline:
            return False
        if s.web.web_search != "ask":
            return s.web.web_search == "always"
        answers: queue.Queue[str | None] = queue.Queue(maxsize=1)
        if not self.post_message(ConsentRequest(query, answers)):
            return False
        while True:
            try:
                return answers.get(timeout=0.1) in ("once", "always")
            except queue.Empty:
                if cancel.is_set():
                    return False

    @on(ConsentRequest)
    def _ask_consent(self, msg: ConsentRequest) -> None:
        def chosen(choice: str | None) -> None:
            match choice:  # a match narrows the button id to the Literal the setting takes
                case "always" | "never":
                    self.host.remember_web_choice(choice)
            msg.answers.put(choice)

        self.app.push_screen(WebConsentModal(msg.query), chosen)

    @on(PipelineEvent)
    async def _event(self, msg: PipelineEvent) -> None:
        run = self.run
        if run is None or msg.run_id != run.id:
            return
        event = safe_fields(msg.event)  # no escape sequence from a document reaches the screen
        self.query_one(TracePanel).add(event)
        if isinstance(event, ev.Token):
            await run.view.write(event.text)
        elif isinstance(event, ev.AnswerRestarted):
            await run.view.restart()
        elif isinstance(event, (ev.StageStarted, ev.StyleChosen)):
            run.view.on_stage(event, STAGE_TEXT)
        elif isinstance(event, ev.Retrieved) and event.scope and event.scope.named_in_question:
            run.view.within = event.scope.label
            run.view.undo_hint = True
            self.last_named = (run.question, run.view)
            self.refresh_bindings()
        elif isinstance(event, ev.QuestionRewritten):
            run.rewritten = run.view.rewritten = event.rewritten
            run.view.undo_hint = True
            self.last_rewrite = (run.question, run.view)
            run.view.set_status(STAGE_TEXT["retrieve"])
        elif isinstance(event, ev.WebError):
            self.notify(
                f"Web search failed: {event.error}. Answering from your documents only.",
                severity="warning",
            )
        elif isinstance(event, ev.WebSkipped) and event.reason == SKIP_DNS:
            self.host.set_network(down=True)
        elif isinstance(event, (ev.WebQuery, ev.WebResults)) or (
            isinstance(event, ev.WebSkipped) and event.reason in ONLINE_SKIPS
        ):
            self.host.set_network(down=False)  # the DNS check passed
        elif isinstance(event, ev.AnswerDone):
            await self._finish(run, event)
        self.call_after_refresh(self._follow)

    async def _finish(self, run: Run, done: ev.AnswerDone) -> None:
        run.finished = True
        cancelled = run.cancel.is_set()
        record = self.query_one(TracePanel).state  # the run's RunRecord, AnswerDone folded in
        searched = record.searched["text"] if record.claims_nothing and record.searched else ""
        await run.view.finish(
            done.answer.text,
            done.evidence,
            [c.n for c in record.sources],
            done.answer.action,
            refused=done.answer.refused,
            cancelled=cancelled,
            style=done.answer.style,
            dropped=done.answer.dropped_sentences,
            searched=searched,
            inferred=record.sources_inferred,
        )
        if cancelled:
            self.query_one(TracePanel).set_note("Cancelled: the partial answer is kept.")
        turn = Turn.from_answer(
            done.answer,
            done.evidence,
            rewritten=run.rewritten,
            cancelled=cancelled,
            model=run.view.model,
            sources=record.sources,
            searched=searched,
            inferred=record.sources_inferred,
            scope=record.scope.sources if record.scope else None,
        )
        history = self.host.backend.history
        try:
            if self.conversation is None:
                self.conversation = history.create()
                history.set_current(self.conversation.id)
            self.conversation = history.append(self.conversation.id, turn)
            self.host.conversation_title = self.conversation.title
        except Exception as exc:  # noqa: BLE001 - the answer is still on screen
            self.notify(
                f"Could not save the conversation: {describe_error(exc)[0]}", severity="warning"
            )

    @on(RunEnded)
    async def _ended(self, msg: RunEnded) -> None:
        run = self.run
        if run is None or msg.run_id != run.id:
            return
        self.run = None
        if msg.empty_index:
            text = self.empty_index_text()
            run.view.set_status(f"✗ {text}", "#ef5350")
            self.query_one(TracePanel).set_note(text[0].upper() + text[1:] + ".")
        elif msg.error:
            run.view.set_status(f"✗ {msg.error}", "#ef5350")
            self.query_one(TracePanel).set_note(f"Failed: {msg.error}")
            body = f"{msg.error}\n\n{msg.details}" if msg.details else msg.error
            self.notify(body, title="Could not answer", severity="error", timeout=10)
        elif not run.finished:
            await run.view.finish("", (), (), None, cancelled=True)
            self.query_one(TracePanel).set_note("Cancelled before the answer started.")

    def empty_index_text(self) -> str:
        n = len(self.host.previous_sources)
        if n:
            return (
                f"{n} document{'s were' if n != 1 else ' was'} indexed with other settings: "
                "press ctrl+l, then ctrl+r to re-index them with the current ones"
            )
        return (
            "no documents indexed yet: press ctrl+l to add your documents, "
            "or ctrl+g to index localcrag's own docs as a demo"
        )

    async def action_undo_rewrite(self) -> None:
        """The follow-up rewrite got it wrong: ask the same words again, as typed."""
        if self.last_rewrite is None:
            self.notify("The last question was not rewritten.")
            return
        if self._busy():
            return
        await self.ask(self.last_rewrite[0], rewrite=False)

    def action_cancel(self) -> None:
        if self.run is not None and not self.run.cancel.is_set():
            self.run.cancel.set()
            self.run.view.set_status("cancelling…", "#fdd835")
        elif self.run is None:
            self.query_one("#question", Input).focus()
