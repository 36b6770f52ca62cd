"""The status bar on every screen: model state, library size, ingest progress, privacy."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from localcrag.tui.host import AppHost, app_host
from localcrag.tui.widgets.documents import progress_text
from localcrag.tui.widgets.labels import plural

MODEL_STATES = {
    "loading": ("◌ loading models…", "#fdd835"),
    "ready": ("● models ready", "#66bb6a"),
    "error": ("✗ models unavailable", "#ef5350"),
}


class StatusBar(Static):
    """Watches the app's reactive state and redraws one line."""

    WATCHED = (
        "model_state",
        "sources",
        "ingest_progress",
        "privacy",
        "conversation_title",
        "library_ready",
    )

    def on_mount(self) -> None:
        for name in self.WATCHED:
            self.watch(self.app, name, self._changed, init=False)
        self._changed()

    def _changed(self) -> None:
        app = app_host(self)
        left = Text()
        label, style = MODEL_STATES.get(app.model_state, (app.model_state, ""))
        left.append(label, style=style)
        left.append("  │  ", style="dim")
        if not app.library_ready:
            left.append("opening library…", style="dim")
        else:
            docs, chunks = len(app.sources), sum(s.chunks for s in app.sources)
            left.append(f"{plural(docs, 'document')} · {chunks} chunks")
        p = app.ingest_progress
        if p is not None:
            left.append("  │  ", style="dim")
            left.append(f"indexing {p.done}/{p.total} · {progress_text(p)}", style="#90caf9")
        right = Text()
        if app.conversation_title:
            title = app.conversation_title
            right.append(title if len(title) <= 28 else title[:27] + "…", style="dim italic")
            right.append("  │  ", style="dim")
        if server := _model_server(app):
            right.append(server, style="bold #ffb74d")
            right.append("  │  ", style="dim")
        privacy = app.privacy
        if privacy == "offline":
            right.append(" OFFLINE ", style="bold #ffffff on #6a1b9a")
        else:
            right.append(f"web: {privacy}", style="#fdd835" if privacy == "always" else "dim")
        grid = Table.grid(expand=True)
        grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        grid.add_column(justify="right", no_wrap=True)
        grid.add_row(left, right)
        self.update(grid)


def _model_server(app: AppHost) -> str:
    """ "model server: gpu-box:8080" when answers are written by ``llm_endpoint``: the
    question and the evidence text are sent there, so it is always in view."""
    from urllib.parse import urlsplit

    url = app.settings.endpoint.llm_endpoint
    return f"model server: {urlsplit(url).netloc or url}" if url else ""
