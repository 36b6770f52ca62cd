"""The localcrag desktop app: chat, library and settings as modes over one shared Backend.

``LocalcragApp`` is the one App. It owns the state every screen shows (model state,
documents, ingest progress, watched folders, privacy) as reactives, navigation, the model
loading and the network probe. The library's long jobs and the watched folders are two
helpers it owns and calls: ``self.library`` (``LibraryController``: listing, ingesting,
removing, in thread workers) and ``self.watcher`` (``FolderWatcher``). They report back
only with messages (``tui/messages.py``), which the app's handlers turn into reactives.
Screens stay thin: they read the reactives and call the app or its helpers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen

from localcrag.errors import describe_error
from localcrag.history import History
from localcrag.settings import Settings, grouped
from localcrag.textutil import terminal_safe
from localcrag.tui.backend import Backend, DemoLibraryFactory, LibraryFactory, PipelineFactory
from localcrag.tui.host import AppHost
from localcrag.tui.library import INDEX_POLL_S, LibraryController
from localcrag.tui.messages import (
    IngestFinished,
    IngestUpdate,
    ModelsLoaded,
    ModelsLoading,
    RefreshSources,
    SourcesLoaded,
)
from localcrag.tui.modals import MessageModal
from localcrag.tui.screens.chat import ChatScreen
from localcrag.tui.screens.help import HelpScreen
from localcrag.tui.screens.library import LibraryScreen
from localcrag.tui.screens.models import ModelsScreen
from localcrag.tui.screens.settings import SettingsScreen
from localcrag.tui.watcher import FolderWatcher
from localcrag.types import Scope

NETWORK_POLL_S = (
    45.0  # a DNS probe this often notices a network that came or went (cheap: one lookup)
)


def dns_probe() -> bool:
    """Whether the web search host resolves (the web step's own check, cached 30 s)."""
    from localcrag.crag.web import is_online

    return is_online()


class LocalcragApp(App[int]):
    """``LocalcragApp(settings, backend=...)`` or ``LocalcragApp(settings, pipeline_factory=...,
    library_factory=...)``: tests inject fakes, ``run()`` uses the real core."""

    CSS_PATH = "app.tcss"
    TITLE = "localcrag"
    SUB_TITLE = "Corrective RAG over your documents"
    MODES = {
        "chat": ChatScreen,
        "library": LibraryScreen,
        "settings": SettingsScreen,
        "models": ModelsScreen,
    }
    DEFAULT_MODE = "chat"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False, tooltip="Quit localcrag"),
        Binding(
            "ctrl+l",
            "toggle_mode('library')",
            "Library",
            tooltip="Library: add, re-index and remove documents (again: back to chat)",
        ),
        Binding(
            "ctrl+s",
            "toggle_mode('settings')",
            "Settings",
            tooltip="Settings, every one, in groups: "
            + ", ".join(title.split(" (")[0] for title, _ in grouped()),
        ),
        Binding(
            "f3",
            "toggle_mode('models')",
            "Models",
            show=False,
            tooltip="Models: what is in models/, the catalogue, and pulls from the Hugging Face hub",
        ),
        Binding("f1", "help", "Help", tooltip="This list of keys"),
        Binding("f2", "show_mode('chat')", "Chat", show=False, tooltip="Back to the chat"),
        Binding(
            "ctrl+g",
            "demo",
            "Demo docs",
            show=False,
            tooltip="Index localcrag's own README and docs/ as a demo library",
        ),
    ]

    model_state: reactive[str] = reactive("loading")
    privacy: reactive[str] = reactive("ask")
    conversation_title: reactive[str] = reactive("")
    library_ready: reactive[bool] = reactive(False)
    sources: reactive[tuple] = reactive(())
    ingest_progress: reactive[Any] = reactive(None)
    ingest_report: reactive[Any] = reactive(None, always_update=True)
    previous_sources: reactive[tuple] = reactive(())  # indexed with other settings only
    demo_active: reactive[bool] = reactive(False)  # questions go to the demo's own index
    watched: reactive[tuple] = reactive(())  # folders kept in sync (self.watcher)
    scope: reactive[Scope | None] = reactive(None)  # the documents questions are asked within

    def __init__(
        self,
        settings: Settings | None = None,
        backend: Backend | None = None,
        *,
        pipeline_factory: PipelineFactory | None = None,
        library_factory: LibraryFactory | None = None,
        history: History | None = None,
        browse_root: Path | None = None,
        settings_error: str | None = None,
        network_probe: Callable[[], bool] = dns_probe,
        demo_library_factory: DemoLibraryFactory | None = None,
    ) -> None:
        super().__init__()
        settings = backend.settings if backend else (settings or Settings())
        self.backend = backend or Backend(
            settings,
            library_factory=library_factory,
            pipeline_factory=pipeline_factory,
            history=history,
            demo_library_factory=demo_library_factory,
        )
        self.browse_root = browse_root or Path.cwd()
        self.settings_error = settings_error
        self.model_error: str | None = None
        self.network_down = False  # the last DNS probe (or web step) found no network
        self.network_probe = network_probe
        self.library_error: str | None = None  # why the last listing failed
        self.library = LibraryController(self, self.backend)
        self.watcher = FolderWatcher(self, self.backend)
        self.switch_to: str | None = None  # a library to reopen in, once this app has closed
        from localcrag.settings.paths import library_name

        if (name := library_name()) is not None:
            self.sub_title = f"library: {name}"

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Never read notifications as markup: paths and errors may contain [brackets]; their
        escape codes, bidi controls and zero-width characters never reach the screen."""
        super().notify(
            terminal_safe(message),
            title=terminal_safe(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    @property
    def settings(self) -> Settings:
        return self.backend.settings

    def on_mount(self) -> None:
        self.update_privacy()
        self.load_models()
        self.check_network()
        self.set_interval(NETWORK_POLL_S, self.check_network, name="network")
        self.set_interval(INDEX_POLL_S, self.check_index, name="index")
        self.watcher.start()  # folders watched in an earlier session (none: no thread)
        self.watched = self.watcher.folders
        if self.settings_error:
            self.show_settings_error(self.settings_error)

    def on_unmount(self) -> None:
        self.library.close()
        self.watcher.stop()

    def show_settings_error(self, error: str) -> None:
        """Any unreadable settings file (TOML syntax or a bad value): one dialog, never a crash."""
        self.push_screen(
            MessageModal(
                "Settings file is invalid",
                f"{error}\n\n"
                "localcrag started with the default settings and leaves "
                "the file as it is: a save writes only the settings you "
                "change (keeping a .bak copy), and none is written while "
                "the file is not valid TOML.",
            )
        )

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
        yield SystemCommand(
            "Library",
            "Add, re-index and remove documents (ctrl+l)",
            lambda: self.action_show_mode("library"),
        )
        yield SystemCommand(
            "Settings",
            "Models, evaluator, web search, offline (ctrl+s)",
            lambda: self.action_show_mode("settings"),
        )
        yield SystemCommand(
            "Models",
            "Models in models/, the catalogue, pull a bigger model (F3)",
            lambda: self.action_show_mode("models"),
        )
        yield SystemCommand(
            "Index demo documents", "Index localcrag's own README and docs/", self.action_demo
        )
        from localcrag.ingest.libraries import listing

        for lib in listing():
            if not lib["current"]:
                yield SystemCommand(
                    f"Library: {lib['name']}",
                    f"Switch to the {lib['name']!r} library ({lib['documents']} documents; its "
                    "own index, history and settings)",
                    partial(self.switch_library, lib["name"]),
                )

    def switch_library(self, name: str) -> None:
        """Close and open again in library ``name`` (``run`` does the reopening)."""
        if self.ingesting:
            self.notify("Indexing is running: stop it (Library, s) before switching.")
            return
        self.switch_to = name
        self.exit(0)

    # --- models and library state ---------------------------------------------------------

    def update_privacy(self) -> None:
        s = self.settings
        if s.web.offline:
            self.privacy = "offline"
        elif s.web.web_search != "never" and self.network_down:
            self.privacy = "offline (no network)"
        else:
            self.privacy = {"ask": "ask first", "always": "always", "never": "never"}[
                s.web.web_search
            ]

    def set_network(self, down: bool) -> None:
        """What the last probe or web step found out about the network (until the next check)."""
        if down != self.network_down:
            self.network_down = down
            self.update_privacy()

    @work(thread=True, group="network", exclusive=True, exit_on_error=False)
    def check_network(self) -> None:
        """Probe DNS off the UI thread, at start-up and every NETWORK_POLL_S. Never when offline
        or web search is "never": then nothing may touch the network, not even DNS."""
        s = self.settings
        if s.web.offline or s.web.web_search == "never":
            return
        try:
            up = bool(self.network_probe())
        except Exception:  # noqa: BLE001 - a failing probe means no network
            up = False
        self.call_from_thread(self.set_network, not up)

    def remember_web_choice(self, choice: Literal["always", "never"]) -> None:
        """The consent dialog's "always"/"never", saved so it is not asked again."""
        self.settings.web.web_search = choice
        self.update_privacy()
        if self.save_settings({"web_search"}) is None:
            self.notify(f"Web search set to '{choice}' until localcrag closes")

    def save_settings(self, keys: set[str]) -> Path | None:
        """Write only ``keys`` into the settings file and say what was written where; a file
        that cannot be parsed is left alone (one line saying which file and what to do)."""
        from localcrag.errors import LocalcragError
        from localcrag.settings import backup_path

        try:
            path = self.settings.save(keys=sorted(keys))
        except (LocalcragError, OSError) as exc:
            self.notify(f"Settings not saved: {exc}", severity="error", timeout=12)
            return None
        kept = (
            f"; the previous file is kept as {backup_path(path).name}"
            if backup_path(path).exists()
            else ""
        )
        self.notify(f"Saved {', '.join(sorted(keys))} to {path}{kept}", timeout=8)
        return path

    def settings_changed(self, changed: set[str]) -> None:
        self.update_privacy()
        if changed & {"offline", "web_search"}:
            self.check_network()
        if self.backend.needs_warm_up(changed):
            self.load_models()
        elif changed:
            self.refresh_sources()

    @work(thread=True, group="models", exit_on_error=False)
    def load_models(self) -> None:
        """Open the library (fast), then load every model (slow) behind the loading state."""
        self.post_message(ModelsLoading())
        self.library.list_sources()
        try:
            self.backend.warm_up()
        except Exception as exc:  # noqa: BLE001 - reported, never raised into the UI
            self.post_message(ModelsLoaded(*describe_error(exc)))
            return
        self.post_message(ModelsLoaded())

    @on(ModelsLoading)
    def _models_loading(self) -> None:
        self.model_state = "loading"

    @on(ModelsLoaded)
    def _models_loaded(self, msg: ModelsLoaded) -> None:
        self.model_error = msg.error
        self.model_state = "error" if msg.error else "ready"
        if msg.error:
            detail = f"\n\n{msg.details}" if msg.details else ""
            self.push_screen(
                MessageModal(
                    "Models could not be loaded",
                    f"{msg.error}{detail}\n\nPick other models in Settings "
                    "(ctrl+s), or provision them with `make models`.",
                )
            )

    # --- the library (its jobs run in self.library; results come back as messages) -------

    @property
    def ingesting(self) -> bool:
        return self.library.ingesting

    def refresh_sources(self) -> None:
        self.library.refresh()

    def check_index(self) -> None:
        """The index poll (every INDEX_POLL_S): re-list when another process changed it."""
        self.library.poll()

    def start_ingest(
        self, paths: Sequence[Path], replace: bool = False, demo: bool = False
    ) -> bool:
        """Index ``paths`` in the library's worker; False (and a warning) when another ingest
        is still running. ``replace`` re-embeds unchanged files too (a re-index)."""
        if not self.library.ingest(paths, replace=replace, demo=demo):
            return False
        self.ingest_report = None
        return True

    def action_demo(self) -> None:
        paths = self.backend.demo_paths()
        if not paths:
            self.notify(
                "The project's documentation was not found next to the package.", severity="warning"
            )
            return
        if self.sources and not self.demo_active:
            self.notify(
                "The demo is only searched while your library is empty: your documents "
                "answer your questions.",
                severity="warning",
            )
            return
        if self.start_ingest(paths, demo=True):
            self.notify(
                "Indexing localcrag's own README and docs/ into a demo index of its own — "
                "ask a question when it is done."
            )

    def toggle_watch(self, folder: Path) -> None:
        self.watcher.toggle(folder)
        self.watched = self.watcher.folders

    def _show_state(self, sources: Any, previous: Sequence[str], demo: Sequence[Any]) -> None:
        """Show a listing; say so once when the user's own documents replace the demo."""
        was_demo = self.demo_active
        self.library.listed(demo)
        self.demo_active = self.backend.demo_active
        self.previous_sources = tuple(previous)
        self.sources = tuple(sources)
        self._keep_scope_indexed()
        if was_demo and not self.demo_active and self.sources:
            n = len(self.library.demo_index)
            self.notify(
                f"Answers now come from your documents only. The {n} demo document"
                f"{'s stay' if n != 1 else ' stays'} in {'their' if n != 1 else 'its'} own index "
                "and is no longer searched (ctrl+d in the Library deletes it).",
                title="Demo documents",
                timeout=15,
            )

    def ask_within(self, sources: Sequence[str] | None) -> None:
        """Questions from now on search only these listed documents (None: all of them)."""
        self.scope = self._listed_scope(sources) if sources else None

    def _listed_scope(self, sources: Sequence[str], patterns: tuple[str, ...] = ()) -> Scope:
        """The scope of these documents as the Library lists them (their passage counts)."""
        listed = {s.source: s for s in self.sources}
        kept = tuple(s for s in sources if s in listed)
        return Scope(
            patterns or tuple(Path(s).name for s in kept),
            kept,
            sum(listed[s].chunks for s in kept),
        )

    def _keep_scope_indexed(self) -> None:
        """A scope keeps only documents still indexed; one with none left is cleared (said)."""
        if self.scope is None:
            return
        now = self._listed_scope(self.scope.sources, self.scope.patterns)
        if now.sources == self.scope.sources:
            return
        if not now.sources:
            self.notify("The documents you asked within are no longer indexed: asking all.")
        self.scope = now if now.sources else None

    @on(RefreshSources)
    def _refresh_requested(self) -> None:
        self.refresh_sources()

    @on(SourcesLoaded)
    def _sources_loaded(self, msg: SourcesLoaded) -> None:
        self.library_error = msg.error  # the models dialog that follows says what to do
        if msg.sources is not None:
            self._show_state(msg.sources, msg.previous, msg.demo)
        self.library_ready = True

    @on(IngestUpdate)
    def _ingest_update(self, msg: IngestUpdate) -> None:
        if self.ingesting:
            self.ingest_progress = msg.progress

    @on(IngestFinished)
    def _ingest_finished(self, msg: IngestFinished) -> None:
        self.library.finished(msg)
        self.ingest_progress = None
        if msg.sources is not None:
            self._show_state(msg.sources, msg.previous, msg.demo)
        self.ingest_report = msg.report
        self.library.announce(msg, self.sources)


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
    from localcrag.settings import data_dir
    from localcrag.settings.files import private_files

    private_files(data_dir())  # 0700 data home, 0600 files, whatever the umask
    while True:
        settings, error = load_settings()
        app = LocalcragApp(settings, settings_error=error)
        app.run()
        if app.switch_to is None:
            return int(app.return_code or 0)
        os.environ["LOCALCRAG_LIBRARY"] = app.switch_to  # index, history, settings: its own


if TYPE_CHECKING:

    def _is_a_host(app: LocalcragApp) -> AppHost:
        """mypy checks here that LocalcragApp is what ``app_host`` promises the screens."""
        return app
