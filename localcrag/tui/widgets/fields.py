"""The settings form's editors: one per kind of pydantic field, picked from a registry.

A field's kind follows from its annotation (a switch for bool, a list for Literal choices
or model files, a number box for int and float, an inline TOML table for a dict, text
otherwise), so a new setting needs no code here. Each editor says how a value is shown in
its widget and how the widget's content reads back; a content that cannot be a value at all
raises ValueError with the one line to show under the field.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Input, Select

from localcrag.settings.values import read_value, toml_value
from localcrag.tui.widgets.checkbox import PlainCheckbox

NOT_SET = "(not set)"


class Editor:
    """Text in an Input: the default editor."""

    input_type: Literal["integer", "number", "text"] = "text"

    def make(self, wid: str, content: Any, choices: list[str] | None, blank: str) -> Widget:
        return Input(content, id=wid, type=self.input_type, compact=True, placeholder=blank)

    def show(self, value: Any) -> Any:
        """The widget content for a settings value."""
        return "" if value is None else str(value)

    def parse(self, content: Any, optional: bool) -> Any:
        """The value for Settings from the widget content (empty = not set, where allowed)."""
        text = str(content).strip()
        return None if optional and not text else text


class Integer(Editor):
    input_type = "integer"


class Number(Editor):
    input_type = "number"


class Switch(Editor):
    def make(self, wid: str, content: Any, choices: list[str] | None, blank: str) -> Widget:
        return PlainCheckbox("", value=bool(content), id=wid, compact=True)  # "[x] on" / "[ ] off"

    def show(self, value: Any) -> Any:
        return bool(value)

    def parse(self, content: Any, optional: bool) -> Any:
        return bool(content)


class Choice(Editor):
    """A list; a saved value that is not among the choices stays, marked "(not found)"."""

    def make(self, wid: str, content: Any, choices: list[str] | None, blank: str) -> Widget:
        return Select(
            options(choices or [], content),
            value=content,
            allow_blank=bool(blank),
            prompt=blank or "Select",
            id=wid,
            compact=True,
        )

    def show(self, value: Any) -> Any:
        return Select.NULL if value is None else str(value)

    def parse(self, content: Any, optional: bool) -> Any:
        return None if content is Select.NULL else content


class Table(Editor):
    """A dict as one inline TOML table, e.g. ``{endpoint = "http://minio:9000"}``."""

    def show(self, value: Any) -> Any:
        return "" if not value else toml_value(value)

    def parse(self, content: Any, optional: bool) -> Any:
        text = str(content).strip()
        if not text:
            return None
        value = read_value(text)
        if not isinstance(value, dict):
            raise ValueError(
                'write an inline TOML table such as {endpoint = "http://minio:9000", '
                "allow_http = true}, or leave it empty"
            )
        return value


EDITORS: dict[str, Editor] = {
    "switch": Switch(),
    "choice": Choice(),
    "integer": Integer(),
    "number": Number(),
    "table": Table(),
    "text": Editor(),
}


def unwrap(annotation: Any) -> tuple[Any, bool]:
    """(the type without None, whether None is allowed): ``str | None`` -> (str, True)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return (args[0] if len(args) == 1 else annotation), len(args) < len(
            typing.get_args(annotation)
        )
    return annotation, False


def literal_choices(annotation: Any) -> list[str] | None:
    """The strings of a ``Literal["a", "b"]`` (None for any other type)."""
    if typing.get_origin(annotation) is not Literal:
        return None
    args = typing.get_args(annotation)
    return [str(a) for a in args] if args and all(isinstance(a, str) for a in args) else None


KINDS: tuple[tuple[str, typing.Callable[[Any], bool]], ...] = (  # first match wins; else "text"
    ("switch", lambda t: t is bool),
    ("choice", lambda t: literal_choices(t) is not None),
    ("integer", lambda t: t is int),
    ("number", lambda t: t is float),
    ("table", lambda t: t is dict or typing.get_origin(t) is dict),
)


def kind_of(annotation: Any) -> str:
    base, _ = unwrap(annotation)
    return next((kind for kind, test in KINDS if test(base)), "text")


def options(choices: list[str], content: Any) -> list[tuple[Text, str]]:
    """Select options as Text (model file names may hold [brackets], never markup), plus a
    current value that is not among them."""
    out = [(Text(c), c) for c in choices]
    if content is not Select.NULL and content is not None and str(content) not in choices:
        out.append((Text(f"{content} (not found)"), str(content)))
    return out
