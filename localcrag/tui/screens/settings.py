"""Settings: a form generated from the pydantic model, validated live, saved to the TOML file.

Every setting is on it, group by group in the model's order (``settings.grouped``), unless
``HIDDEN`` names it with a reason; its editor follows from its type (``widgets/fields``),
its help is its description, and pydantic's errors appear under the field they concern.
Model choices come from ``models.discover``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Header, Input, Label, Select, Static

from localcrag.settings import Settings, field, grouped
from localcrag.tui.host import AppHost, app_host
from localcrag.tui.modals import ConfirmModal
from localcrag.tui.widgets.fields import (
    EDITORS,
    NOT_SET,
    Editor,
    kind_of,
    literal_choices,
    options,
    unwrap,
)
from localcrag.tui.widgets.status import StatusBar

# field -> why the screen does not show it (none so far: all are the user's)
HIDDEN: dict[str, str] = {}
SECTIONS: dict[str, list[str]] = {
    title: [f.name for f in group if f.name not in HIDDEN] for title, group in grouped()
}
MODEL_KIND = {"generator": "gguf", "grader_llm": "gguf", "embedder": "sentence-transformers"}
BLANK = {
    "grader_llm": "(same as generator)",
    "grader_model": "(the one shipped in the package)",
    "llm_endpoint": "(not set: the local generator)",
    "llm_endpoint_model": "(the first one it lists)",
    "index_uri": "(not set: the local data dir)",
}  # what an empty optional field means


def _choices(name: str, models: list[Any]) -> list[str] | None:
    if name in MODEL_KIND:
        return [m.name for m in models if m.kind == MODEL_KIND[name]]
    return literal_choices(unwrap(field(name).info.annotation)[0])


def editor(name: str) -> Editor:
    """The editor of a field: a list of model files, else the one its type picks."""
    return EDITORS["choice" if name in MODEL_KIND else kind_of(field(name).info.annotation)]


def optional(name: str) -> bool:
    return unwrap(field(name).info.annotation)[1]


class SettingsScreen(Screen):
    _errors: dict[str, str] = {}  # field -> why, from the last validate()
    BINDINGS = [
        Binding(
            "escape",
            "leave",
            "Chat",
            tooltip="Back to the chat (valid unsaved edits stay here; "
            "invalid ones: you are asked to discard them or keep editing)",
        ),
        Binding(
            "ctrl+s",
            "save",
            "Save",
            priority=True,
            tooltip="Validate and save to the settings file",
        ),
        Binding("ctrl+r", "revert", "Revert", tooltip="Discard edits: back to the saved settings"),
    ]

    @property
    def host(self) -> AppHost:
        """The app, with its localcrag members typed (``tui/host.py``)."""
        return app_host(self)

    def compose(self) -> ComposeResult:
        from localcrag.models.discovery import discover

        s = self.host.settings
        try:
            models = discover(s.models.models_dir)
        except OSError:
            models = []
        self._models_found = [(m.name, m.kind) for m in models]
        yield Header(icon="◆")
        with VerticalScroll(id="settings-form"):
            yield Static(
                Text.assemble(
                    ("Settings", "bold"),
                    (
                        f"  ·  {len(models)} models found in {s.models.models_dir.name}/  ·  ctrl+s saves, Esc goes back",
                        "dim",
                    ),
                ),
                id="settings-intro",
            )
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
        ed = editor(name)
        blank = BLANK.get(name, NOT_SET) if optional(name) else ""
        with Vertical(classes="field"):
            with Horizontal(classes="field-row"):
                yield Label(name, classes="field-name")
                yield ed.make(
                    f"field-{name}", ed.show(field(name).get(s)), _choices(name, models), blank
                )
            yield Static(Text(field(name).info.description or ""), classes="field-help")
            yield Static("", id=f"error-{name}", classes="field-error")

    def on_mount(self) -> None:
        self.query_one(".field-row > *:last-child").focus()

    def on_screen_resume(self) -> None:
        """Show changes made elsewhere (e.g. "always" in the web dialog) unless edits are pending."""
        self._refresh_model_options()
        if not self.dirty():
            self._load(self.host.settings)

    def _refresh_model_options(self) -> None:
        """A model pulled (Models screen) or dropped into models/ since this screen was built
        becomes selectable here without a restart."""
        from localcrag.models.discovery import discover

        try:
            models = discover(self.host.settings.models.models_dir)
        except OSError:
            return
        found = [(m.name, m.kind) for m in models]
        if found == self._models_found:
            return
        self._models_found = found
        for name in MODEL_KIND:
            select = self.query_one(f"#field-{name}", Select)
            value = select.value
            with self.prevent(Select.Changed):
                select.set_options(options(_choices(name, models) or [], value))
                select.value = value

    def dirty(self) -> bool:
        """Any widget holding something else than the saved value shows."""
        s = self.host.settings
        return any(self._content(n) != editor(n).show(field(n).get(s)) for n in self._names())

    # --- form <-> settings --------------------------------------------------------------

    def _names(self) -> list[str]:
        return [n for names in SECTIONS.values() for n in names]

    def _editor(self, name: str) -> Input | Select[str] | Checkbox:
        """The widget that edits setting ``name`` (``Editor.make``: an Input, a Select or a
        Checkbox; each has a ``value``)."""
        widget = self.query_one(f"#field-{name}")
        if not isinstance(widget, (Input, Select, Checkbox)):
            raise TypeError(f"#field-{name} is a {type(widget).__name__}, not a settings editor")
        return widget

    def _content(self, name: str) -> Any:
        return self._editor(name).value

    def _load(self, s: Settings) -> None:
        with self.prevent(Input.Changed, Select.Changed, Checkbox.Changed):
            for name in self._names():
                self._editor(name).value = editor(name).show(field(name).get(s))
        self.validate()

    def _read(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(the form's values, the fields whose content is no value at all -> why)."""
        values: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for name in self._names():
            try:
                values[name] = editor(name).parse(self._content(name), optional(name))
            except ValueError as exc:
                errors[name] = str(exc)
        return values, errors

    def validate(self) -> Settings | None:
        """Build Settings from the form; show each error under its field. None when invalid."""
        values, errors = self._read()
        new = None
        try:
            new = self.host.settings.merged(values)
        except ValidationError as exc:
            for err in exc.errors():
                # loc is (group, name); a group-level error (threshold order) belongs under
                # lower_threshold
                name = str(err["loc"][1]) if len(err["loc"]) > 1 else "lower_threshold"
                errors.setdefault(name, str(err["msg"]).removeprefix("Value error, "))
        self._errors = errors
        for name in self._names():
            label = self.query_one(f"#error-{name}", Static)
            label.update(Text(errors.get(name, ""), style="#ef5350"))
            label.display = name in errors
            self.query_one(f"#field-{name}").set_class(name in errors, "invalid-field")
        if new is not None:
            self._show_choices(new)
        return None if errors else new

    def refusal(self) -> str:
        """One line: the first invalid field, what it holds, why, and what to do."""
        name = next(n for n in [*self._names(), *self._errors] if n in self._errors)
        why = self._errors[name]
        more = f" (and {len(self._errors) - 1} more marked in red)" if len(self._errors) > 1 else ""
        return (
            f"Not saved: {name} = {str(self._content(name))!r}: {why}{more}. "
            "Fix it, or ctrl+r to go back to the saved settings."
        )

    def _show_choices(self, s: Settings) -> None:
        """What the selected generator will be used for, and why (from its GGUF header)."""
        from localcrag.crag.answer.capability import model_choices

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
            self.notify(self.refusal(), severity="error", timeout=12)
            return
        changed = self.host.backend.apply(new)
        self._refresh_model_options()  # a new models_dir: its files to choose from
        self._load(self.host.settings)  # shown as saved: "http://x/v1/" as "http://x/v1", say
        if not changed:
            self.notify("Nothing changed: the settings file was not touched.")
            return
        self.host.save_settings(changed)  # says what it wrote, or why it could not
        self.host.settings_changed(changed)
        if self.host.backend.needs_warm_up(changed):
            self.notify("Reloading models…")

    def action_leave(self) -> None:
        """Esc: back to the chat, unless invalid edits are pending: then ask (discard them, or
        keep editing) rather than leave settings that cannot be saved behind silently."""
        if self.validate() is not None:
            self.host.action_show_mode("chat")
            return

        def chosen(discard: bool | None) -> None:
            if discard:
                self._load(self.host.settings)
                self.host.action_show_mode("chat")
            else:
                self.query_one(".invalid-field").focus()

        self.app.push_screen(
            ConfirmModal(
                "Some edits are invalid (marked in red) and were not saved. "
                "Discard them and go back to the chat, or keep editing?",
                "Discard edits",
                cancel="Keep editing",
            ),
            chosen,
        )

    @on(Button.Pressed, "#revert")
    def action_revert(self) -> None:
        self._load(self.host.settings)
        self.notify("Reverted to the saved settings.")
