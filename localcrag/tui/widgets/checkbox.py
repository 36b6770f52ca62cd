"""A checkbox drawn in plain characters: "[x]" on, "[ ] off".

Textual's default draws the box with half-block glyphs (▐X▌) and tells on from off by
colour alone; in several terminal fonts (seen at 160 columns) the half blocks render as
broken glyphs and the state cannot be read. ASCII brackets render everywhere, and the
state is in the characters, not only in the colour.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class PlainCheckbox(Checkbox):
    @property
    def _button(self) -> Content:
        if self.value:
            return Content.assemble(("[x]", "bold #66bb6a"), " on ")
        return Content.assemble(("[ ]", "#9e9e9e"), " off")

    def render(self) -> Content:
        """Only the box when there is no label: the default pads an empty label with two
        spaces its width does not count, so the box was cut to "[ ] of…"."""
        return self._button if not self._label.plain else super().render()
