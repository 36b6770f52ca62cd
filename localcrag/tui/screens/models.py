"""Models: what is in models/ (read from each file's header) and the catalogue, with pulls.

The same lists as `localcrag models`. A pull runs in a thread worker (``llm.pull``) and
reports progress as messages; it is online only and only on an explicit key press, and the
screen says what leaves the machine before anything does. Escape leaves the screen while a
pull continues; ``c`` stops it, keeping the partial file for the next pull.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, ProgressBar, Static

from localcrag.tui.host import AppHost, app_host
from localcrag.tui.widgets.status import StatusBar

if TYPE_CHECKING:
    from localcrag.llm.pull import PullProgress

PRIVACY = (
    "A pull sends the repository and file name to the Hugging Face hub ($HF_ENDPOINT, "
    "default huggingface.co) and nothing about your documents; nothing is fetched "
    "unless you ask here or with `localcrag models pull`."
)


class PullUpdate(Message):
    def __init__(self, done: int, total: int | None, stage: str) -> None:
        super().__init__()
        self.done, self.total, self.stage = done, total, stage


class PullFinished(Message):
    def __init__(self, line: str, error: bool) -> None:
        super().__init__()
        self.line, self.error = line, error


def default_probe(host: str) -> bool:
    from localcrag.crag.web import is_online

    return is_online(host)


class ModelsScreen(Screen):
    BINDINGS = [
        Binding(
            "escape", "app.show_mode('chat')", "Chat", tooltip="Back to the chat (a pull goes on)"
        ),
        Binding(
            "p", "pull_selected", "Pull", tooltip="Download the catalogue model under the cursor"
        ),
        Binding("c", "cancel_pull", "Stop pull", tooltip="Stop the pull; the next pull resumes it"),
    ]
    probe: Callable[[str], bool] = staticmethod(default_probe)  # tests use the fake hub's

    @property
    def host(self) -> AppHost:
        """The app, with its localcrag members typed (``tui/host.py``)."""
        return app_host(self)

    def __init__(self) -> None:
        super().__init__()
        self._cancel = threading.Event()
        self.pulling = False

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with VerticalScroll(id="models-body"):
            yield Label("In models/", classes="section-title")
            yield DataTable(id="local-models", cursor_type="row", zebra_stripes=True)
            yield Label(
                "Catalogue (p pulls the selected row; sizes and RAM approximate)",
                classes="section-title",
            )
            yield DataTable(id="catalogue", cursor_type="row", zebra_stripes=True)
            yield Input(
                placeholder="or type a short name or OWNER/REPO/FILE.gguf and press Enter",
                id="pull-spec",
                select_on_focus=False,
            )  # typing on the list goes on here
            yield ProgressBar(id="pull-progress", show_eta=False)
            yield Static("", id="pull-status")
            yield Static(Text(PRIVACY, style="dim"), id="pull-privacy")
        yield StatusBar()
        yield Footer()

    def on_mount(self) -> None:
        local = self.query_one("#local-models", DataTable)
        local.add_columns("name", "kind", "size", "params", "context", "chat", "in use")
        self.query_one("#catalogue", DataTable).add_columns(
            "name", "params", "file", "RAM", "state", "repository"
        )
        self.query_one("#pull-progress", ProgressBar).display = False
        self.refresh_lists()
        self.query_one("#catalogue", DataTable).focus()

    def on_screen_resume(self) -> None:
        if not self.pulling:
            self.refresh_lists()

    def refresh_lists(self) -> None:
        from localcrag.llm.inventory import catalogue_rows, human_size, model_rows

        s = self.host.settings
        local = self.query_one("#local-models", DataTable)
        local.clear()
        try:
            rows = model_rows(s)
        except OSError as exc:
            rows = []
            self._status(f"cannot read {s.models.models_dir}: {exc}", error=True)
        for r in rows:
            local.add_row(
                Text(r.name),
                r.kind,
                human_size(r.size_bytes),
                r.params,
                r.context,
                r.chat,
                ", ".join(r.roles),
                key=r.name,
            )
        cat = self.query_one("#catalogue", DataTable)
        cat.clear()
        needle = self.query_one("#pull-spec", Input).value.strip().lower()
        for e, present in catalogue_rows(s.models.models_dir):
            if needle and needle not in f"{e.name} {e.repo}".lower():
                continue  # filtered as the name is typed
            cat.add_row(
                e.name,
                e.params,
                f"{e.size_gb:.2f} GB",
                f"{e.ram_gb:.1f} GB",
                "pulled" if present else "",
                Text(e.repo),
                key=e.name,
            )

    def _status(self, line: str, error: bool = False) -> None:
        self.query_one("#pull-status", Static).update(Text(line, style="#ef5350" if error else ""))

    # --- pulling ------------------------------------------------------------------------

    def action_pull_selected(self) -> None:
        table = self.query_one("#catalogue", DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            self.start_pull(str(key))

    @on(Input.Changed, "#pull-spec")
    def _filter(self) -> None:
        if not self.pulling:
            self.refresh_lists()

    def on_key(self, event: events.Key) -> None:
        """Typing a name on the catalogue goes to the name field (which filters the list);
        the screen's own keys (p, c) keep their meaning."""
        field = self.query_one("#pull-spec", Input)
        keys = {b.key for b in self.BINDINGS if isinstance(b, Binding)}
        if (
            event.is_printable
            and event.character
            and not field.has_focus
            and event.character not in keys
        ):
            field.focus()
            field.insert_text_at_cursor(event.character)
            event.stop()

    @on(Input.Submitted, "#pull-spec")
    def _typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.start_pull(event.value.strip())

    def start_pull(self, spec: str) -> None:
        if self.pulling:
            self.notify("A pull is running; wait for it or press c to stop it.", severity="warning")
            return
        self.pulling = True
        self._cancel.clear()
        bar = self.query_one("#pull-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self._status(f"pulling {spec}…")
        self._pull(spec, self.host.settings)

    def action_cancel_pull(self) -> None:
        if self.pulling:
            self._cancel.set()

    @work(thread=True, group="pull", exit_on_error=False)
    def _pull(self, spec: str, settings: Any) -> None:
        from localcrag.errors import describe_error
        from localcrag.llm.inventory import human_size
        from localcrag.llm.pull import check_disk, download, plan_pull, ram_warning

        try:
            plan = plan_pull(
                spec, settings.models.models_dir, offline=settings.web.offline, probe=self.probe
            )
            if plan.dest.is_file() and plan.size == plan.dest.stat().st_size:
                self.post_message(PullFinished(f"{plan.dest.name} is already in models/", False))
                return
            check_disk(plan)
            warning = ram_warning(plan) or ""
            how = download(plan, self._pulled, cancel=self._cancel)
        except Exception as exc:  # noqa: BLE001 - every failure is one line on the screen
            self.post_message(PullFinished(describe_error(exc)[0], True))
            return
        size = human_size(plan.size) if plan.size else ""
        self.post_message(
            PullFinished(
                f"saved {plan.dest.name} ({size}, {how}); choose it as "
                f"generator in Settings (ctrl+s). {warning}".strip(),
                False,
            )
        )

    def _pulled(self, p: PullProgress) -> None:
        """The download's progress callback (in the pull's thread): to the UI as a message."""
        self.post_message(PullUpdate(p.done, p.total, p.stage))

    def on_pull_update(self, msg: PullUpdate) -> None:
        bar = self.query_one("#pull-progress", ProgressBar)
        bar.update(total=msg.total, progress=msg.done)
        verb = "verifying" if msg.stage == "verify" else "downloading"
        total = f" of {msg.total / 1e6:.0f} MB" if msg.total else ""
        self._status(f"{verb}: {msg.done / 1e6:.0f} MB{total}")

    def on_pull_finished(self, msg: PullFinished) -> None:
        self.pulling = False
        self.query_one("#pull-progress", ProgressBar).display = False
        self._status(msg.line, error=msg.error)
        self.refresh_lists()
