"""The library: what is indexed, and adding, re-indexing and removing documents.

Ingestion and removal run in the app's library controller (``app.library``, thread
workers, so indexing continues when you go back to chat); this screen watches its
progress and report through the app's reactives.

The path box has focus when the screen opens, and the single-letter keys (re-index,
remove, ...) only act in the documents table, so a typed path never triggers them.
File names are shown as plain text (never markup: `notes [draft].txt`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import (
    Button,
    DataTable,
    DirectoryTree,
    Footer,
    Header,
    Input,
    Label,
    ProgressBar,
    Static,
)

from localcrag.errors import describe_error
from localcrag.tui.host import AppHost, app_host
from localcrag.tui.messages import OverviewLoaded
from localcrag.tui.modals import ConfirmModal, OverviewModal
from localcrag.tui.widgets.documents import (
    PAGE_ROWS,
    DocTree,
    changed_on_disk,
    failures,
    library_summary,
    page_note,
    page_of,
    progress_text,
    row_cells,
)
from localcrag.tui.widgets.labels import plural
from localcrag.tui.widgets.status import StatusBar

TABLE_ONLY = {"reindex", "update_all", "remove", "stop", "mark", "ask_within", "overview"}
MARK = "✓ "  # before the name of a document marked for "ask about these"


class LibraryScreen(Screen):
    BINDINGS = [
        Binding(
            "escape",
            "app.show_mode('chat')",
            "Chat",
            tooltip="Back to the chat (indexing continues)",
        ),
        Binding(
            "a",
            "add",
            "Add",
            tooltip="Add the typed path, or the file/folder highlighted in the "
            "browser (in the table or browser)",
        ),
        Binding(
            "r",
            "reindex",
            "Re-index",
            tooltip="Parse and embed the selected document again (in the documents table)",
        ),
        Binding(
            "u",
            "update_all",
            "Update all",
            tooltip="Re-index every document that changed on disk (in the documents table)",
        ),
        Binding(
            "delete,x",
            "remove",
            "Remove",
            tooltip="Remove the selected document from the library (in the documents table)",
        ),
        Binding(
            "s",
            "stop",
            "Stop",
            tooltip="Stop indexing after the current file (in the documents "
            "table; or the Stop button)",
        ),
        Binding(
            "w",
            "watch",
            "Watch",
            tooltip="Watch the folder of the selected document (in the table) "
            "or the highlighted folder (in the browser): kept in sync while the app runs; w again stops",
        ),
        Binding(
            "o",
            "overview",
            "Overview",
            tooltip="What the selected document is about: its title, sections and central "
            "sentences (in the documents table; Enter too)",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            tooltip="Mark or unmark the selected document for asking about (in the documents table)",
        ),
        Binding(
            "q",
            "ask_within",
            "Ask about",
            tooltip="Ask about the marked documents (or the selected one) only: questions search "
            "them alone until you clear it in the chat (in the documents table)",
        ),
        Binding(
            "ctrl+r",
            "reindex_previous",
            "Re-index other",
            tooltip="Re-index the documents indexed with other settings (embedder, chunking) "
            "into the current ones",
        ),
        Binding(
            "ctrl+d",
            "remove_demo",
            "Remove demo",
            priority=True,
            tooltip="Remove the demo documents (localcrag's own README and docs)",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.marked: set[str] = set()  # documents marked for "ask about these"
        self._typing = False  # the list is redrawn for a filter keystroke (no new stat)
        self._stale: dict[str, str] = {}  # documents changed on disk since indexed

    @property
    def host(self) -> AppHost:
        """The app, with its localcrag members typed (``tui/host.py``)."""
        return app_host(self)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Vertical(id="library-main"):
            yield Static(id="library-summary")
            yield Input(placeholder="Filter documents: part of a name or folder", id="doc-filter")
            yield DataTable(id="documents", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="add-row"):
                yield Input(
                    placeholder="Path of a file or folder to add (Enter), or pick one below",
                    id="path",
                )
                yield Button("Add", id="add", variant="primary")
                yield Button("Re-index", id="reindex")
                yield Button("Remove", id="remove", variant="error")
            with Horizontal(id="library-lower"):
                yield DocTree(self.host.browse_root, id="browser")
                with Vertical(id="ingest-pane"):
                    yield Label("Indexing", classes="pane-title")
                    yield ProgressBar(id="progress", show_eta=False)
                    yield Static("Idle.", id="ingest-status")
                    yield Button("Stop (s)", id="stop", variant="warning")
                    yield Static("", id="failures")
        yield StatusBar()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#documents", DataTable)
        for label, key in (
            ("Document", "name"),
            ("Length", "pages"),
            ("Chunks", "chunks"),
            ("Indexed", "when"),
            ("Folder", "folder"),
        ):
            table.add_column(label, key=key)
        tree = self.query_one(DocTree)
        root = Path(tree.path)  # DirectoryTree.path is typed str | Path
        tree.root.set_label(root.name or str(root))
        tree.border_title = "Browse (Enter picks)"
        self.query_one("#progress", ProgressBar).display = False
        self.query_one("#stop", Button).display = False
        self.watch(self.app, "sources", self._fill_table)
        self.watch(self.app, "library_ready", self._fill_table, init=False)
        self.watch(self.app, "ingest_progress", self._progress)
        self.watch(self.app, "ingest_report", self._report)
        self.watch(self.app, "watched", self._fill_table, init=False)
        self._left = False
        self.query_one("#path", Input).focus()

    def on_screen_suspend(self) -> None:
        self._left = self.app.current_mode != "library"  # not just a dialog on top

    def on_screen_resume(self) -> None:
        """Opening the library (ctrl+l) always starts in the path box: typing is a path. The
        table is redrawn: files may have changed on disk meanwhile."""
        self._fill_table()
        if self._left:
            self._left = False
            self.query_one("#path", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TABLE_ONLY:
            return True if isinstance(self.focused, DataTable) else None  # None: shown dimmed
        if action in ("add", "watch"):
            return None if isinstance(self.focused, Input) else True
        if action == "reindex_previous":
            return bool(self.host.previous_sources)
        if action == "remove_demo":
            return bool(self.host.library.demo_sources(self.host.sources))
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self) -> None:
        self.refresh_bindings()

    # --- views of app state -------------------------------------------------------------

    def _fill_table(self) -> None:
        table = self.query_one("#documents", DataTable)
        table.clear()
        demo, sources = 0, self.host.sources
        if not self._typing:  # a filter keystroke re-uses the last stat of the list
            self._stale = changed_on_disk(sources)
        stale, self._typing = self._stale, False
        box = self.query_one("#doc-filter", Input)  # hidden (app.tcss) until a library is large
        box.display = box.display or len(sources) > PAGE_ROWS
        shown, matching = page_of(sources, box.value)
        listed = {s.source for s in sources}
        self.marked &= listed  # a removed document is no longer marked
        for s in shown:
            is_demo = self.host.library.is_demo(s.source)
            demo += is_demo
            cells = row_cells(s, is_demo, stale.get(s.source), self.host.watcher.watching(s.source))
            if s.source in self.marked:
                cells = (Text(MARK, style="bold #81c784") + cells[0], *cells[1:])
            table.add_row(*cells, key=s.source)
        summary = library_summary(
            sources,
            demo,
            self.host.library_ready,
            len(self.host.previous_sources),
            stale,
            len(self.host.watched),
        )
        summary.append(page_note(len(shown), matching, len(sources), box.value), style="#90caf9")
        self.query_one("#library-summary", Static).update(summary)
        self.refresh_bindings()

    @on(Input.Changed, "#doc-filter")
    def _filtered(self) -> None:
        self._typing = True
        self._fill_table()

    def _progress(self) -> None:
        p = self.host.ingest_progress
        bar = self.query_one("#progress", ProgressBar)
        status = self.query_one("#ingest-status", Static)
        bar.display = p is not None or self.host.ingesting
        self.query_one("#stop", Button).display = self.host.ingesting
        if p is not None:
            part = (
                p.chunks_done / p.chunks_total if p.stage == "embedding" and p.chunks_total else 0
            )
            bar.update(
                total=max(p.total, 1), progress=min(p.done + part, p.total)
            )  # moves while embedding
            status.update(Text.assemble((f"{p.done}/{p.total} files ", "bold"), progress_text(p)))
        elif self.host.ingesting:
            bar.update(total=None)
            status.update(Text("Starting…"))
            self.query_one("#failures", Static).update(Text())

    def _report(self) -> None:
        r = self.host.ingest_report
        self.query_one("#stop", Button).display = self.host.ingesting
        stopped: Any = self.host.library.stopped
        if r is None and (self.host.ingesting or stopped is None):
            return
        bar = self.query_one("#progress", ProgressBar)
        status = self.query_one("#ingest-status", Static)
        if r is None:  # stopped: the files not reached keep their old chunks; the bar stays put
            status.update(Text(f"Stopped: indexed {stopped}; the rest unchanged.", style="#fdd835"))
            return
        bar.update(total=1, progress=1)
        bar.display = True
        skipped = len(r.skipped)
        status.update(
            Text(
                f"Done: indexed {len(r.indexed)}, unchanged {len(r.unchanged)}, "
                f"failed {len(r.failed)}"
                + (f"; skipped {skipped} file(s) of unsupported types." if skipped else ".")
            )
        )
        self.query_one("#failures", Static).update(failures(r.failed))

    # --- actions ------------------------------------------------------------------------

    def _selected(self) -> str | None:
        table = self.query_one("#documents", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return key.value

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
        if self.host.start_ingest([path]):
            self.query_one("#path", Input).value = ""
            self.query_one("#path", Input).focus()  # ready for the next path (never the table)

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
            self.host.start_ingest([Path(source)], replace=True, demo=self.host.demo_active)

    def action_update_all(self) -> None:
        if not self.host.sources:
            self.notify("Nothing indexed yet.", severity="warning")
            return
        existing = [Path(s.source) for s in self.host.sources if Path(s.source).exists()]
        missing = len(self.host.sources) - len(existing)
        if missing:
            self.notify(
                f"{missing} indexed file(s) no longer exist; remove them with x.",
                severity="warning",
            )
        if existing:
            self.host.start_ingest(existing, demo=self.host.demo_active)

    @on(Button.Pressed, "#remove")
    def action_remove(self) -> None:
        source = self._selected()
        if source is None:
            self.notify("Select a document in the table first.", severity="warning")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.host.library.remove([source])

        self.app.push_screen(
            ConfirmModal(
                f"Remove {Path(source).name} from the library?\n(The file itself is not touched.)",
                "Remove",
            ),
            confirmed,
        )

    def action_mark(self) -> None:
        source = self._selected()
        if source is None:
            return
        self.marked ^= {source}
        table = self.query_one("#documents", DataTable)
        row = table.cursor_row
        self._fill_table()
        table.move_cursor(row=min(row + 1, table.row_count - 1))  # down, to mark the next

    @on(DataTable.RowSelected, "#documents")
    def action_overview(self) -> None:
        source = self._selected()
        if source is not None:
            self._load_overview(source)

    @work(thread=True, group="overview", exclusive=True, exit_on_error=False)
    def _load_overview(self, source: str) -> None:
        try:
            found = self.host.backend.library().overview(source)
            self.post_message(OverviewLoaded(source, found, None if found else "not indexed"))
        except Exception as exc:  # noqa: BLE001 - one line, never a crash
            self.post_message(OverviewLoaded(source, None, describe_error(exc)[0]))

    @on(OverviewLoaded)
    def _show_overview(self, msg: OverviewLoaded) -> None:
        if msg.overview is None:
            self.notify(f"No overview of {Path(msg.source).name}: {msg.error}", severity="warning")
            return

        def chosen(ask: bool | None) -> None:
            if ask:
                self._ask_within({msg.source})

        self.app.push_screen(OverviewModal(msg.overview), chosen)

    def action_ask_within(self) -> None:
        """Back to the chat, asking within the marked documents (or the selected one)."""
        chosen = self.marked or ({s} if (s := self._selected()) else set())
        if chosen:
            self._ask_within(chosen)

    def _ask_within(self, chosen: set[str]) -> None:
        self.host.ask_within(sorted(chosen))
        self.marked = set()
        self._fill_table()
        self.host.action_show_mode("chat")

    @on(Button.Pressed, "#stop")
    def action_stop(self) -> None:
        if self.host.ingesting:
            self.host.library.cancel()
            self.query_one("#ingest-status", Static).update(
                Text("Stopping after the current file…")
            )
        else:
            self.notify("Nothing is being indexed.")

    def action_watch(self) -> None:
        tree = self.query_one(DocTree)
        if tree.has_focus and tree.cursor_node is not None and tree.cursor_node.data is not None:
            picked = Path(tree.cursor_node.data.path)
            folder = picked if picked.is_dir() else picked.parent
        elif (source := self._selected()) is not None:
            folder = Path(source).parent
        else:
            self.notify(
                "Select a document in the table, or a folder in the browser, to watch its folder.",
                severity="warning",
            )
            return
        self.host.toggle_watch(folder)

    def action_reindex_previous(self) -> None:
        """Index the documents indexed with other settings into the current table."""
        paths = [Path(p) for p in self.host.previous_sources if Path(p).exists()]
        if not paths:
            self.notify("No documents from other settings to re-index.")
        elif self.host.start_ingest(paths):
            self.notify(f"Re-indexing {plural(len(paths), 'document')} with the current settings.")

    def action_remove_demo(self) -> None:
        """Ask, then remove every demo document (the files are not touched)."""
        demo = self.host.library.demo_sources(self.host.sources)
        if not demo:
            self.notify("No demo documents in the library.")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.host.library.remove(demo, demo=True)

        self.app.push_screen(
            ConfirmModal(
                f"Remove the {plural(len(demo), 'demo document')} "
                "(localcrag's own README and docs) from the library?",
                "Remove",
            ),
            confirmed,
        )
