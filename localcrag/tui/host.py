"""``AppHost``: the app as its screens, modals and widgets use it, and ``app_host(node)``.

Textual types ``node.app`` as the generic ``App[object]``; the screens need the localcrag
members on top (the settings, the backend, the library state). Importing ``LocalcragApp``
from a screen would close an import circle (the app imports every screen), so the screens
name this Protocol instead; ``tui/app.py`` checks statically that ``LocalcragApp``
satisfies it, which is what makes the cast in ``app_host`` sound.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, cast

from localcrag.settings import Settings
from localcrag.tui.messages import Host

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from localcrag.ingest.progress import IngestProgress, IngestReport
    from localcrag.ingest.rows import SourceInfo
    from localcrag.tui.backend import Backend
    from localcrag.tui.library import LibraryController
    from localcrag.tui.watcher import FolderWatcher
    from localcrag.types import Scope


class AppHost(Host, Protocol):
    """What a screen, modal or widget reads and calls on ``LocalcragApp`` beyond ``App``."""

    # the app's reactives (the screens watch them through ``self.watch(self.app, name, ...)``)
    @property
    def model_state(self) -> str: ...
    @property
    def privacy(self) -> str: ...

    conversation_title: str  # the chat screen sets it, the status bar shows it

    @property
    def library_ready(self) -> bool: ...
    @property
    def sources(self) -> tuple[SourceInfo, ...]: ...
    @property
    def previous_sources(self) -> tuple[str, ...]: ...
    @property
    def ingest_progress(self) -> IngestProgress | None: ...
    @property
    def ingest_report(self) -> IngestReport | None: ...
    @property
    def demo_active(self) -> bool: ...
    @property
    def watched(self) -> tuple[str, ...]: ...  # the watched folders
    @property
    def scope(self) -> Scope | None: ...  # the documents questions are asked within

    # plain state and the helpers the app owns
    @property
    def settings(self) -> Settings: ...
    @property
    def backend(self) -> Backend: ...
    @property
    def library(self) -> LibraryController: ...
    @property
    def watcher(self) -> FolderWatcher: ...
    @property
    def browse_root(self) -> Path: ...
    @property
    def library_error(self) -> str | None: ...
    @property
    def ingesting(self) -> bool: ...

    # what the screens ask of it
    def action_show_mode(self, mode: str) -> None: ...
    def save_settings(self, keys: set[str]) -> Path | None: ...
    def settings_changed(self, changed: set[str]) -> None: ...
    def remember_web_choice(self, choice: Literal["always", "never"]) -> None: ...
    def set_network(self, down: bool) -> None: ...
    def start_ingest(
        self, paths: Sequence[Path], replace: bool = False, demo: bool = False
    ) -> bool: ...
    def toggle_watch(self, folder: Path) -> None: ...
    def ask_within(self, sources: Sequence[str] | None) -> None: ...


def app_host(node: MessagePump) -> AppHost:
    """``node.app`` as the localcrag app (every screen and widget runs inside one)."""
    return cast("AppHost", node.app)
