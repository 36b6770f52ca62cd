"""The localcrag desktop app: chat, library and settings as modes over one shared Backend.

The app owns the state every screen shows (model state, documents, ingest progress,
privacy) as reactives, and the long jobs that outlive a screen (model loading,
ingestion, in `library_app.py`) as thread workers that report back with messages. Screens
stay thin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from textual import on, work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from localcrag.errors import describe_error
from localcrag.history import History
from localcrag.settings import Settings, grouped
from localcrag.tui.backend import Backend, DemoLibraryFactory, LibraryFactory, PipelineFactory
from localcrag.tui.library_app import INDEX_POLL_S, LibraryApp
from localcrag.tui.messages import ModelsLoaded, ModelsLoading
from localcrag.tui.modals import MessageModal
from localcrag.tui.screens.chat import ChatScreen
from localcrag.tui.screens.help import HelpScreen
from localcrag.tui.screens.library import LibraryScreen
from localcrag.tui.screens.models import ModelsScreen
from localcrag.tui.screens.settings import SettingsScreen

NETWORK_POLL_S = (
    45.0  # a DNS probe this often notices a network that came or went (cheap: one lookup)
)


def dns_probe() -> bool:
    """Whether the web search host resolves (the web step's own check, cached 30 s)."""
    from localcrag.crag.web import is_online

    return is_online()


class LocalcragApp(LibraryApp):
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

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: str = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Never read notifications as markup: paths and errors may contain [brackets]."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    @property
    def settings(self) -> Settings:
        return self.backend.settings

    def on_mount(self) -> None:
        self.update_privacy()
        self.load_models()
        self.check_network()
        self.set_interval(NETWORK_POLL_S, self.check_network, name="network")
        self.set_interval(INDEX_POLL_S, self.check_index, name="index")
        self.start_watching()  # folders watched in an earlier session (none: no thread)
        if self.settings_error:
            self.show_settings_error(self.settings_error)

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

    def remember_web_choice(self, choice: str) -> None:
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
        self._list_sources()
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
    settings, error = load_settings()
    app = LocalcragApp(settings, settings_error=error)
    app.run()
    return int(app.return_code or 0)
