"""The library: what is indexed, and adding, re-indexing and removing documents.

Ingestion itself runs in the app's worker (so it continues when you go back to chat);
this screen watches its progress and report through the app's reactives.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Iterable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, DirectoryTree, Footer, Header, Input, Label, ProgressBar, Static

from localcrag.tui.backend import describe_error
from localcrag.tui.messages import RefreshSources
from localcrag.tui.modals import ConfirmModal
from localcrag.tui.widgets.status import StatusBar


class DocTree(DirectoryTree):
    """A file browser without hidden files; plain glyphs (emoji widths vary between terminals)."""

    ICON_NODE_EXPANDED = "▾ "
    ICON_NODE = "▸ "
    ICON_FILE = "  "

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [p for p in paths if not p.name.startswith(".")]


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "—"


class LibraryScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.show_mode('chat')", "Chat", tooltip="Back to the chat (indexing continues)"),
        Binding("a", "add", "Add", tooltip="Add the typed path, or the file/folder highlighted in the browser"),
        Binding("r", "reindex", "Re-index", tooltip="Parse and embed the selected document again"),
        Binding("u", "update_all", "Update all", tooltip="Re-index every document that changed on disk"),
        Binding("delete,x", "remove", "Remove", tooltip="Remove the selected document from the library"),
        Binding("s", "stop", "Stop", tooltip="Stop indexing after the current file"),
    ]

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Vertical(id="library-main"):
            yield Static(id="library-summary")
            yield DataTable(id="documents", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="add-row"):
                yield Input(placeholder="Path of a file or folder to add (Enter), or pick one below",
                            id="path")
                yield Button("Add", id="add", variant="primary")
                yield Button("Re-index", id="reindex")
                yield Button("Remove", id="remove", variant="error")
            with Horizontal(id="library-lower"):
                yield DocTree(self.app.browse_root, id="browser")
                with Vertical(id="ingest-pane"):
                    yield Label("Indexing", classes="pane-title")
                    yield ProgressBar(id="progress", show_eta=False)
                    yield Static("Idle.", id="ingest-status")
                    yield Static("", id="failures")
        yield StatusBar()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#documents", DataTable)
        for label, key in (("Document", "name"), ("Pages", "pages"), ("Chunks", "chunks"),
                           ("Indexed", "when"), ("Folder", "folder")):
            table.add_column(label, key=key)
        tree = self.query_one(DocTree)
        tree.root.set_label(tree.path.name or str(tree.path))
        tree.border_title = "Browse (Enter picks)"
        self.query_one("#progress", ProgressBar).display = False
        self.watch(self.app, "sources", self._fill_table)
        self.watch(self.app, "library_ready", self._fill_table, init=False)
        self.watch(self.app, "ingest_progress", self._progress)
        self.watch(self.app, "ingest_report", self._report)

    # --- views of app state -------------------------------------------------------------

    def _fill_table(self) -> None:
        table = self.query_one("#documents", DataTable)
        table.clear()
        for s in self.app.sources:
            p = Path(s.source)
            table.add_row(p.name, Text(str(s.pages), justify="right"), Text(str(s.chunks), justify="right"),
                          when(s.indexed_at), str(p.parent), key=s.source)
        docs, chunks = len(self.app.sources), sum(s.chunks for s in self.app.sources)
        if not self.app.library_ready:
            summary = "Opening the library…"
        elif docs:
            summary = f"{docs} document{'s' if docs != 1 else ''}, {chunks} chunks"
        else:
            summary = ("No documents yet. Type or pick a file or folder below and press Enter "
                       "(a), or press ctrl+g to index localcrag's own docs as a demo.")
        self.query_one("#library-summary", Static).update(Text(summary, style="bold"))

    def _progress(self) -> None:
        p = self.app.ingest_progress
        bar = self.query_one("#progress", ProgressBar)
        status = self.query_one("#ingest-status", Static)
        bar.display = p is not None or self.app.ingesting
        if p is not None:
            bar.update(total=max(p.total, 1), progress=p.done)
            status.update(Text.assemble((f"{p.done}/{p.total} ", "bold"), f"{p.stage}: {Path(p.path).name}",
                                        ("\ns stops between files", "dim")))
        elif self.app.ingesting:
            bar.update(total=None)
            status.update("Starting…")

    def _report(self) -> None:
        r = self.app.ingest_report
        if r is None:
            return
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=1, progress=1)
        bar.display = True
        self.query_one("#ingest-status", Static).update(
            f"Done: indexed {len(r.indexed)}, unchanged {len(r.unchanged)}, failed {len(r.failed)}.")
        lines = Text()
        for path, error in r.failed:
            lines.append("✗ ", style="#ef5350")
            lines.append(f"{Path(path).name}: ", style="bold")
            lines.append(f"{error}\n")
        self.query_one("#failures", Static).update(lines)

    # --- actions ------------------------------------------------------------------------

    def _selected(self) -> str | None:
        table = self.query_one("#documents", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return key.value if key is not None else None

    @on(DirectoryTree.FileSelected)
    @on(DirectoryTree.DirectorySelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        self.query_one("#path", Input).value = str(event.path)

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#add")
    def _add_from_input(self) -> None:
        raw = self.query_one("#path", Input).value.strip()
        if not raw:
            self.notify("Type a path, or pick a file or folder in the browser.", severity="warning")
            self.query_one("#path", Input).focus()
            return
        path = Path(raw).expanduser()
        if not path.exists():
            self.notify(f"{path} does not exist.", severity="error")
            return
        if self.app.start_ingest([path]):
            self.query_one("#path", Input).value = ""
            self.query_one("#documents", DataTable).focus()

    def action_add(self) -> None:
        tree = self.query_one(DocTree)
        if tree.has_focus and tree.cursor_node is not None and tree.cursor_node.data is not None:
            self.query_one("#path", Input).value = str(tree.cursor_node.data.path)
        if self.query_one("#path", Input).value.strip():
            self._add_from_input()
        else:
            self.query_one("#path", Input).focus()

    @on(Button.Pressed, "#reindex")
    def action_reindex(self) -> None:
        source = self._selected()
        if source is None:
            self.notify("Select a document in the table first.", severity="warning")
        elif not Path(source).exists():
            self.notify(f"{source} no longer exists; remove it instead.", severity="error")
        else:
            self.app.start_ingest([Path(source)], replace=True)

    def action_update_all(self) -> None:
        if not self.app.sources:
            self.notify("Nothing indexed yet.", severity="warning")
            return
        existing = [Path(s.source) for s in self.app.sources if Path(s.source).exists()]
        missing = len(self.app.sources) - len(existing)
        if missing:
            self.notify(f"{missing} indexed file(s) no longer exist; remove them with x.", severity="warning")
        if existing:
            self.app.start_ingest(existing)

    @on(Button.Pressed, "#remove")
    def action_remove(self) -> None:
        source = self._selected()
        if source is None:
            self.notify("Select a document in the table first.", severity="warning")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove(source)

        self.app.push_screen(ConfirmModal(f"Remove {Path(source).name} from the library?\n"
                                          "(The file itself is not touched.)", "Remove"), confirmed)

    @work(thread=True, group="remove", exit_on_error=False)
    def _remove(self, source: str) -> None:
        try:
            n = self.app.backend.library().remove(source)
            self.notify(f"Removed {Path(source).name} ({n} chunks).")  # notify is thread-safe
        except Exception as exc:  # noqa: BLE001
            self.notify(describe_error(exc)[0], severity="error")
        self.app.post_message(RefreshSources())

    def action_stop(self) -> None:
        if self.app.ingesting:
            self.app.cancel_ingest()
            self.query_one("#ingest-status", Static).update("Stopping after the current file…")
        else:
            self.notify("Nothing is being indexed.")
