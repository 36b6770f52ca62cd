"""Settings: a form generated from the pydantic model, validated live, saved to the TOML file.

Each field shows its description from ``Settings.model_fields``; errors from pydantic
appear under the field they concern. Model choices come from ``models.discover``.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Header, Input, Label, Select, Static

from localcrag.settings import Settings
from localcrag.tui.modals import ConfirmModal
from localcrag.tui.widgets.checkbox import PlainCheckbox
from localcrag.tui.widgets.status import StatusBar

SECTIONS: dict[str, list[str]] = {
    "Models": ["generator", "scorer", "embedder", "embedder_backend", "grader_llm"],
    "Retrieval evaluator": ["grader", "upper_threshold", "lower_threshold", "strip_threshold",
                            "strip_sentences", "calibrate"],
    "Retrieval": ["top_k", "retrieval_mode"],
    "Web search and privacy": ["web_search", "offline", "web_timeout", "web_results", "web_region"],
    "Generation": ["answer_style", "max_answer_tokens", "temperature", "n_ctx", "evidence_tokens",
                   "threads"],
    "Indexing (changing these re-indexes into a new table)": ["chunk_tokens", "chunk_overlap"],
}
MODEL_KIND = {"generator": "gguf", "scorer": "gguf", "grader_llm": "gguf",
              "embedder": "sentence-transformers"}


def _choices(name: str, models: list[Any]) -> list[str] | None:
    if name in MODEL_KIND:
        return [m.name for m in models if m.kind == MODEL_KIND[name]]
    args = typing.get_args(Settings.model_fields[name].annotation)
    return [str(a) for a in args] if args and all(isinstance(a, str) for a in args) else None


class SettingsScreen(Screen):
    BINDINGS = [
        Binding("escape", "leave", "Chat", tooltip="Back to the chat (valid unsaved edits stay here; "
                "invalid ones: you are asked to discard them or keep editing)"),
        Binding("ctrl+s", "save", "Save", priority=True, tooltip="Validate and save to the settings file"),
        Binding("ctrl+r", "revert", "Revert", tooltip="Discard edits: back to the saved settings"),
    ]

    def compose(self) -> ComposeResult:
        from localcrag.llm.models import discover

        s = self.app.settings
        try:
            models = discover(s.models_dir)
        except OSError:
            models = []
        self._models_found = [(m.name, m.kind) for m in models]
        yield Header(icon="◆")
        with VerticalScroll(id="settings-form"):
            yield Static(Text.assemble(("Settings", "bold"), (
                f"  ·  {len(models)} models found in {s.models_dir.name}/  ·  ctrl+s saves, Esc goes back",
                "dim")), id="settings-intro")
            for section, names in SECTIONS.items():
                yield Label(section, classes="section-title")
                for name in names:
                    yield from self._field(name, s, models)
                if section == "Models":
                    yield Static("", id="model-choices")
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Revert (ctrl+r)", id="revert")
        yield StatusBar()
        yield Footer()

    def _field(self, name: str, s: Settings, models: list[Any]) -> ComposeResult:
        value = getattr(s, name)
        choices = _choices(name, models)
        wid = f"field-{name}"
        with Vertical(classes="field"):
            with Horizontal(classes="field-row"):
                yield Label(name, classes="field-name")
                if isinstance(value, bool):
                    yield PlainCheckbox("", value=value, id=wid, compact=True)  # "[x] on" / "[ ] off"
                elif choices is not None:
                    # Text prompts: model file names may hold [brackets] (never markup)
                    options = [(Text(c), c) for c in choices]
                    if value is not None and str(value) not in choices:
                        options.append((Text(f"{value} (not found)"), str(value)))
                    blank = name == "grader_llm"
                    yield Select(options, value=str(value) if value is not None else Select.NULL,
                                 allow_blank=blank, prompt="(same as generator)" if blank else "Select",
                                 id=wid, compact=True)
                else:
                    kind = Settings.model_fields[name].annotation
                    yield Input(str(value), id=wid, type="integer" if kind is int else
                                "number" if kind is float else "text", compact=True)
            yield Static(Text(Settings.model_fields[name].description or ""), classes="field-help")
            yield Static("", id=f"error-{name}", classes="field-error")

    def on_mount(self) -> None:
        self.query_one(".field-row > *:last-child").focus()

    def on_screen_resume(self) -> None:
        """Show changes made elsewhere (e.g. "always" in the web dialog) unless edits are pending."""
        self._refresh_model_options()
        if not self.dirty():
            self._load(self.app.settings)

    def _refresh_model_options(self) -> None:
        """A model pulled (Models screen) or dropped into models/ since this screen was built
        becomes selectable here without a restart."""
        from localcrag.llm.models import discover

        try:
            models = discover(self.app.settings.models_dir)
        except OSError:
            return
        found = [(m.name, m.kind) for m in models]
        if found == self._models_found:
            return
        self._models_found = found
        for name in MODEL_KIND:
            select = self.query_one(f"#field-{name}", Select)
            value = select.value
            choices = _choices(name, models) or []
            options = [(Text(c), c) for c in choices]
            if value is not Select.NULL and str(value) not in choices:
                options.append((Text(f"{value} (not found)"), str(value)))
            with self.prevent(Select.Changed):
                select.set_options(options)
                select.value = value

    def dirty(self) -> bool:
        s = self.app.settings
        return any(str(v) != str(getattr(s, n)) for n, v in self.form_values().items())

    # --- form <-> settings --------------------------------------------------------------

    def _names(self) -> list[str]:
        return [n for names in SECTIONS.values() for n in names]

    def _load(self, s: Settings) -> None:
        with self.prevent(Input.Changed, Select.Changed, Checkbox.Changed):
            for name in self._names():
                widget = self.query_one(f"#field-{name}")
                value = getattr(s, name)
                if isinstance(widget, Select):
                    widget.value = Select.NULL if value is None else str(value)
                elif isinstance(widget, Checkbox):
                    widget.value = value
                elif isinstance(widget, Input):
                    widget.value = str(value)
        self.validate()

    def form_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self._names():
            widget = self.query_one(f"#field-{name}")
            if isinstance(widget, Select):
                out[name] = None if widget.value is Select.NULL else widget.value
            elif isinstance(widget, Checkbox):
                out[name] = widget.value
            elif isinstance(widget, Input):
                out[name] = widget.value.strip()
        return out

    def validate(self) -> Settings | None:
        """Build Settings from the form; show each error under its field. None when invalid."""
        errors: dict[str, str] = {}
        new = None
        try:
            new = Settings(**{**self.app.settings.model_dump(), **self.form_values()})
        except ValidationError as exc:
            for err in exc.errors():
                # a model-level error (threshold order) belongs under lower_threshold
                name = str(err["loc"][0]) if err["loc"] else "lower_threshold"
                errors.setdefault(name, err["msg"])
        for name in self._names():
            label = self.query_one(f"#error-{name}", Static)
            label.update(Text(errors.get(name, ""), style="#ef5350"))
            label.display = name in errors
            self.query_one(f"#field-{name}").set_class(name in errors, "invalid-field")
        if new is not None:
            self._show_choices(new)
        return None if errors else new

    def _show_choices(self, s: Settings) -> None:
        """What the selected generator will be used for, and why (from its GGUF header)."""
        from localcrag.crag.capability import model_choices

        text = Text()
        text.append("With this generator:", style="bold")
        for c in model_choices(s):
            text.append(f"\n{c.part}: ", style="bold")
            text.append(c.choice)
            text.append(f" ({c.why})", style="dim")
        self.query_one("#model-choices", Static).update(text)

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _changed(self) -> None:
        self.validate()

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        new = self.validate()
        if new is None:
            self.notify("Fix the fields marked in red first.", severity="error")
            return
        changed = self.app.backend.apply(new)
        if not changed:
            self.notify("Nothing changed: the settings file was not touched.")
            return
        self.app.save_settings(changed)  # says what it wrote, or why it could not
        self.app.settings_changed(changed)
        if self.app.backend.needs_warm_up(changed):
            self.notify("Reloading models…")

    def action_leave(self) -> None:
        """Esc: back to the chat, unless invalid edits are pending: then ask (discard them, or
        keep editing) rather than leave settings that cannot be saved behind silently."""
        if self.validate() is not None:
            self.app.action_show_mode("chat")
            return

        def chosen(discard: bool | None) -> None:
            if discard:
                self._load(self.app.settings)
                self.app.action_show_mode("chat")
            else:
                self.query_one(".invalid-field").focus()

        self.app.push_screen(ConfirmModal("Some edits are invalid (marked in red) and were not saved. "
                                          "Discard them and go back to the chat, or keep editing?",
                                          "Discard edits", cancel="Keep editing"), chosen)

    @on(Button.Pressed, "#revert")
    def action_revert(self) -> None:
        self._load(self.app.settings)
        self.notify("Reverted to the saved settings.")
