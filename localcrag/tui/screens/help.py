"""F1: every key binding, generated from the classes' BINDINGS so it can never go stale."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Label, Static

ABOUT = (
    "localcrag answers from your documents with Corrective RAG: it retrieves passages, grades "
    "each one, and decides. CORRECT: the documents answer it (irrelevant sentences are filtered "
    "out). AMBIGUOUS: documents plus a web search. INCORRECT: the web only, or an honest \"I don't "
    'know". The web is never used without your consent, and never when offline.'
)


def _keys(binding: Binding) -> str:
    return " / ".join(
        k.replace("escape", "esc").replace("delete", "del") for k in binding.key.split(",")
    )


def binding_rows(app_class: type[DOMNode]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(section, [(keys, description)]) for the app, each screen and the dialogs.

    The app passes its own class in, so this module never imports the app (no import circle).
    """
    from localcrag.tui.modals import ConversationsModal, PassageModal, WebConsentModal
    from localcrag.tui.screens.chat import ChatScreen
    from localcrag.tui.screens.library import LibraryScreen
    from localcrag.tui.screens.settings import SettingsScreen

    sections: list[tuple[str, type[DOMNode]]] = [
        ("Everywhere", app_class),
        ("Chat", ChatScreen),
        ("Library", LibraryScreen),
        ("Settings", SettingsScreen),
        ("Web search dialog", WebConsentModal),
        ("Passage", PassageModal),
        ("Conversations", ConversationsModal),
    ]
    out = []
    for title, cls in sections:
        rows = [
            (_keys(b), b.tooltip or b.description) for b in cls.BINDINGS if isinstance(b, Binding)
        ]
        if cls is app_class:
            rows += [("ctrl+p", "Command palette"), ("tab / shift+tab", "Move between panes")]
        if cls is ChatScreen:
            rows += [
                ("enter", "Ask (in the question box)"),
                ("enter", "Open the highlighted source (in a sources list)"),
            ]
        out.append((title, rows))
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help"):
            yield Label("localcrag keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(Text(ABOUT, style="dim"))
                yield Static(self._table())
            yield Static(Text("Esc or F1 closes", style="dim"))

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold #90caf9", no_wrap=True)
        table.add_column()
        for title, rows in binding_rows(type(self.app)):
            table.add_row("", "")
            table.add_row(Text(title, style="bold underline"), "")
            for keys, desc in rows:
                table.add_row(Text(keys), Text(desc))  # plain text: no [markup] in key names
        return table

    def action_close(self) -> None:
        self.dismiss(None)
