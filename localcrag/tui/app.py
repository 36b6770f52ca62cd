"""The localcrag desktop app: chat, library and settings as modes over one shared Backend.

The app owns the state every screen shows (model state, documents, ingest progress,
privacy) as reactives, and the long jobs that outlive a screen (model loading,
ingestion) as thread workers that report back with messages. Screens stay thin.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from localcrag.history import History
from localcrag.settings import Settings
from localcrag.tui.backend import Backend, LibraryFactory, PipelineFactory, describe_error
from localcrag.tui.messages import (IngestFinished, IngestUpdate, ModelsLoaded, ModelsLoading,
                                     RefreshSources, SourcesLoaded)
from localcrag.tui.modals import ConfirmModal, MessageModal
from localcrag.tui.screens.chat import ChatScreen
from localcrag.tui.screens.help import HelpScreen
from localcrag.tui.screens.library import LibraryScreen
from localcrag.tui.screens.settings import SettingsScreen


class IngestCancelled(BaseException):
    """Raised from the progress callback to stop Library.ingest between files (not an Exception,
    so the library's per-file error handling does not swallow it)."""


class LocalcragApp(App[int]):
    """``LocalcragApp(settings, backend=...)`` or ``LocalcragApp(settings, pipeline_factory=...,
    library_factory=...)``: tests inject fakes, ``run()`` uses the real core."""

    CSS_PATH = "app.tcss"
    TITLE = "localcrag"
    SUB_TITLE = "Corrective RAG over your documents"
    MODES = {"chat": ChatScreen, "library": LibraryScreen, "settings": SettingsScreen}
    DEFAULT_MODE = "chat"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False, tooltip="Quit localcrag"),
        Binding("ctrl+l", "toggle_mode('library')", "Library",
                tooltip="Library: add, re-index and remove documents (again: back to chat)"),
        Binding("ctrl+s", "toggle_mode('settings')", "Settings",
                tooltip="Settings: models, evaluator thresholds, k, web search, offline"),
        Binding("f1", "help", "Help", tooltip="This list of keys"),
        Binding("f2", "show_mode('chat')", "Chat", show=False, tooltip="Back to the chat"),
        Binding("ctrl+g", "demo", "Demo docs", show=False,
                tooltip="Index localcrag's own README and docs/ as a demo library"),
    ]

    model_state: reactive[str] = reactive("loading")
    library_ready: reactive[bool] = reactive(False)
    sources: reactive[tuple] = reactive(())
    ingest_progress: reactive[Any] = reactive(None)
    ingest_report: reactive[Any] = reactive(None, always_update=True)
    previous_sources: reactive[tuple] = reactive(())  # indexed with other settings, not in this table
    privacy: reactive[str] = reactive("ask")
    conversation_title: reactive[str] = reactive("")

    def __init__(self, settings: Settings | None = None, backend: Backend | None = None, *,
                 pipeline_factory: PipelineFactory | None = None,
                 library_factory: LibraryFactory | None = None, history: History | None = None,
                 browse_root: Path | None = None, settings_error: str | None = None) -> None:
        super().__init__()
        settings = backend.settings if backend else (settings or Settings())
        self.backend = backend or Backend(settings, library_factory=library_factory,
                                          pipeline_factory=pipeline_factory, history=history)
        self.browse_root = browse_root or Path.cwd()
        self.settings_error = settings_error
        self.model_error: str | None = None
        self.library_error: str | None = None
        self._ingest_cancel = threading.Event()
        self.ingesting = False
        self.ingest_stopped: int | None = None  # files indexed before the last ingest was stopped
        self.network_down = False  # the last web step found no network (DNS)
        self._demo_roots: list[Path] | None = None

    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Never read notifications as markup: paths and errors may contain [brackets]."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    @property
    def settings(self) -> Settings:
        return self.backend.settings

    def on_mount(self) -> None:
        self.update_privacy()
        self.load_models()
        if self.settings_error:
            self.show_settings_error(self.settings_error)

    def show_settings_error(self, error: str) -> None:
        """Any unreadable settings file (TOML syntax or a bad value): one dialog, never a crash."""
        self.push_screen(MessageModal("Settings file is invalid", f"{error}\n\n"
                                      "localcrag started with the default settings; saving "
                                      "settings (ctrl+s) will replace the file."))

    def on_unmount(self) -> None:
        self._ingest_cancel.set()

    # --- navigation ---------------------------------------------------------------------

    def action_show_mode(self, mode: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)

    def action_toggle_mode(self, mode: str) -> None:
        self.switch_mode("chat" if self.current_mode == mode else mode)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
        else:
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Chat", "Ask questions (F2)", lambda: self.action_show_mode("chat"))
        yield SystemCommand("Library", "Add, re-index and remove documents (ctrl+l)",
                            lambda: self.action_show_mode("library"))
        yield SystemCommand("Settings", "Models, evaluator, web search, offline (ctrl+s)",
                            lambda: self.action_show_mode("settings"))
        yield SystemCommand("Index demo documents", "Index localcrag's own README and docs/",
                            self.action_demo)

    # --- models and library state ---------------------------------------------------------

    def update_privacy(self) -> None:
        s = self.settings
        if s.offline:
            self.privacy = "offline"
        elif s.web_search != "never" and self.network_down:
            self.privacy = "offline (no network)"
        else:
            self.privacy = {"ask": "ask first", "always": "always", "never": "never"}[s.web_search]

    def set_network(self, down: bool) -> None:
        """What the last web step found out about the network (until the next check)."""
        if down != self.network_down:
            self.network_down = down
            self.update_privacy()

    def remember_web_choice(self, choice: str) -> None:
        """The consent dialog's "always"/"never", saved so it is not asked again."""
        self.settings.web_search = choice
        self.save_settings()
        self.update_privacy()
        self.notify(f"Web search set to '{choice}' (change it in Settings, ctrl+s)")

    def save_settings(self) -> Path | None:
        try:
            return self.settings.save()
        except OSError as exc:
            self.notify(f"Could not save settings: {exc}", severity="error")
            return None

    def settings_changed(self, changed: set[str]) -> None:
        self.update_privacy()
        if self.backend.needs_warm_up(changed):
            self.load_models()
        elif changed:
            self.refresh_sources()

    @work(thread=True, group="models", exit_on_error=False)
    def load_models(self) -> None:
        """Open the library (fast), then load every model (slow) behind the loading state."""
        self.post_message(ModelsLoading())
        self._list_sources()
        try:
            self.backend.warm_up()
        except Exception as exc:  # noqa: BLE001 - reported, never raised into the UI
            self.post_message(ModelsLoaded(*describe_error(exc)))
            return
        self.post_message(ModelsLoaded())

    def _library_state(self) -> tuple[tuple, tuple]:
        """(documents in the current table, documents indexed only with other settings)."""
        lib = self.backend.library()
        sources = tuple(lib.sources())
        try:
            current = {s.source for s in sources}
            previous = tuple(p for p in getattr(lib, "previous_sources", lambda: [])()
                             if p not in current)
        except Exception:  # noqa: BLE001 - only a hint; never stops the listing
            previous = ()
        return sources, previous

    def _list_sources(self) -> None:
        try:
            self.post_message(SourcesLoaded(*self._library_state()))
        except Exception as exc:  # noqa: BLE001
            self.post_message(SourcesLoaded(None, error=describe_error(exc)[0]))

    @work(thread=True, group="sources", exit_on_error=False)
    def refresh_sources(self) -> None:
        self._list_sources()

    @on(RefreshSources)
    def _refresh_requested(self) -> None:
        self.refresh_sources()

    @on(ModelsLoading)
    def _models_loading(self) -> None:
        self.model_state = "loading"

    @on(ModelsLoaded)
    def _models_loaded(self, msg: ModelsLoaded) -> None:
        self.model_error = msg.error
        self.model_state = "error" if msg.error else "ready"
        if msg.error:
            detail = f"\n\n{msg.details}" if msg.details else ""
            self.push_screen(MessageModal("Models could not be loaded",
                                          f"{msg.error}{detail}\n\nPick other models in Settings "
                                          "(ctrl+s), or provision them with `make models`."))

    @on(SourcesLoaded)
    def _sources_loaded(self, msg: SourcesLoaded) -> None:
        self.library_error = msg.error  # the models dialog that follows says what to do
        if msg.sources is not None:
            self.previous_sources = tuple(msg.previous)
            self.sources = tuple(msg.sources)
        self.library_ready = True

    # --- ingestion ----------------------------------------------------------------------

    def action_demo(self) -> None:
        paths = self.backend.demo_paths()
        if not paths:
            self.notify("The project's documentation was not found next to the package.",
                        severity="warning")
            return
        if self.start_ingest(paths):
            self.notify("Indexing localcrag's own README and docs/ — ask a question when it is done.")

    def start_ingest(self, paths: Sequence[Path], replace: bool = False) -> bool:
        """Index in a worker; False when another ingest is still running. ``replace``
        re-embeds unchanged files too (a re-index); old chunks stay until the new ones land."""
        if self.ingesting:
            self.notify("Indexing is already running; wait for it or stop it in the Library.",
                        severity="warning")
            return False
        self.ingesting = True
        self.ingest_stopped = None
        self._ingest_cancel.clear()
        self.ingest_report = None
        self._ingest([Path(p) for p in paths], replace)
        return True

    def reindex_previous(self) -> bool:
        """Index the documents indexed with other settings into the current table."""
        paths = [Path(p) for p in self.previous_sources if Path(p).exists()]
        if not paths:
            self.notify("No documents from other settings to re-index.")
            return False
        if self.start_ingest(paths):
            self.notify(f"Re-indexing {len(paths)} document{'s' if len(paths) != 1 else ''} "
                        "with the current settings.")
            return True
        return False

    # --- demo documents -------------------------------------------------------------------

    def demo_roots(self) -> list[Path]:
        if self._demo_roots is None:
            try:
                self._demo_roots = [Path(p).resolve() for p in self.backend.demo_paths()]
            except OSError:
                self._demo_roots = []
        return self._demo_roots

    def is_demo(self, source: str | Path) -> bool:
        p = Path(source)
        return any(p == root or p.is_relative_to(root) for root in self.demo_roots())

    def demo_sources(self) -> list[str]:
        return [s.source for s in self.sources if self.is_demo(s.source)]

    def remove_demo(self) -> None:
        """Ask, then remove every demo document (the files are not touched)."""
        demo = self.demo_sources()
        if not demo:
            self.notify("No demo documents in the library.")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove_sources(demo)

        self.push_screen(ConfirmModal(f"Remove the {len(demo)} demo document{'s' if len(demo) != 1 else ''} "
                                      "(localcrag's own README and docs) from the library?", "Remove"),
                         confirmed)

    @work(thread=True, group="remove", exit_on_error=False)
    def _remove_sources(self, sources: list[str]) -> None:
        try:
            lib = self.backend.library()
            n = sum(lib.remove(s) for s in sources)
            self.notify(f"Removed {len(sources)} demo document{'s' if len(sources) != 1 else ''} "
                        f"({n} chunks).")  # notify is thread-safe
        except Exception as exc:  # noqa: BLE001
            self.notify(describe_error(exc)[0], severity="error")
        self.post_message(RefreshSources())

    def cancel_ingest(self) -> None:
        if self.ingesting:
            self._ingest_cancel.set()

    @work(thread=True, group="ingest", exit_on_error=False)
    def _ingest(self, paths: list[Path], replace: bool) -> None:
        indexed = 0

        def progress(p: Any) -> None:
            nonlocal indexed
            if p.stage == "indexed":
                indexed += 1
            if self._ingest_cancel.is_set():
                raise IngestCancelled
            self.post_message(IngestUpdate(p))

        report, error, cancelled = None, None, False
        try:
            lib = self.backend.library()
            # a re-index replaces each file's chunks in one commit (never remove-then-add:
            # stopping in between would lose the document)
            report = lib.ingest(paths, on_progress=progress, force=True) if replace else \
                lib.ingest(paths, on_progress=progress)
        except IngestCancelled:
            cancelled = True
        except Exception as exc:  # noqa: BLE001
            error = describe_error(exc)[0]
        try:
            sources, previous = self._library_state()
        except Exception:  # noqa: BLE001
            sources, previous = None, ()
        self.post_message(IngestFinished(report, sources, error, cancelled, indexed=indexed,
                                         previous=previous, paths=tuple(paths)))

    @on(IngestUpdate)
    def _ingest_update(self, msg: IngestUpdate) -> None:
        if self.ingesting:
            self.ingest_progress = msg.progress

    @on(IngestFinished)
    def _ingest_finished(self, msg: IngestFinished) -> None:
        self.ingesting = False
        self.ingest_progress = None
        if msg.sources is not None:
            self.previous_sources = tuple(msg.previous)
            self.sources = tuple(msg.sources)
        self.ingest_stopped = msg.indexed if msg.cancelled else None
        self.ingest_report = msg.report
        if msg.cancelled:
            self.notify(f"Indexing stopped: indexed {msg.indexed}; the rest unchanged.", severity="warning")
        elif msg.error:
            self.notify(f"Indexing failed: {msg.error}", severity="error", timeout=10)
        elif msg.report is not None:
            r = msg.report
            text = (f"Indexed {len(r.indexed)}, unchanged {len(r.unchanged)}, failed {len(r.failed)}; "
                    f"{r.chunks} chunks in the library.")
            self.notify(text, severity="warning" if r.failed else "information",
                        title="Indexing done", timeout=8)
            self._offer_demo_removal(msg.paths, r)

    def _offer_demo_removal(self, paths: Sequence[Path], report: Any) -> None:
        """The user added their own files while the demo docs are still there: offer to drop them."""
        own = [p for p in paths if not self.is_demo(Path(p).expanduser().resolve())]
        demo = self.demo_sources()
        if own and demo and (report.indexed or report.unchanged):
            self.notify(f"The {len(demo)} demo document{'s' if len(demo) != 1 else ''} (localcrag's "
                        "own docs) can show up in answers about your files. Press ctrl+d in the "
                        "Library to remove them.", title="Demo documents", timeout=15)


def load_settings() -> tuple[Settings, str | None]:
    """The settings file, or the defaults and why the file could not be used (any bad value,
    not only a TOML syntax error: the app starts and shows it in a dialog)."""
    from localcrag.errors import LocalcragError

    try:
        return Settings.load(), None
    except LocalcragError as exc:
        return Settings(), str(exc)
    except Exception as exc:  # noqa: BLE001 - e.g. a validation error that escaped load()
        return Settings(), f"invalid settings: {describe_error(exc)[0]}"


def run() -> int:
    """Entry point for `localcrag` with no arguments (and `make run`)."""
    settings, error = load_settings()
    app = LocalcragApp(settings, settings_error=error)
    app.run()
    return int(app.return_code or 0)
