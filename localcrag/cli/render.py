"""How `localcrag ask` shows an answer: rendered in a terminal, plain when piped.

A terminal gets the answer as Rich renders Markdown (bold shows as bold, updated as it
streams; links, images and HTML that documents hold show as written, never as a
hyperlink); a pipe or a file gets plain text: the emphasis markers are removed, never printed
as raw asterisks. Unbalanced or nested markers ("**Thursday **21 March****") are tidied
first, so neither path shows a stray "**".
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

from localcrag.textutil import terminal_safe, unlinked

_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.S)


def tidy(text: str) -> str:
    """Balanced, non-nested bold: markers inside an open run are dropped (the outer pair
    stays), and if any is left unclosed, every marker goes."""
    out, depth, pos = [], 0, 0
    for m in re.finditer(r"\*\*", text):
        out.append(text[pos : m.start()])
        pos = m.end()
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        opens = after.strip() != "" and after != "*" and (before.strip() == "" or depth == 0)
        if opens:
            depth += 1
            out.append("**" if depth == 1 else "")
        elif depth:
            depth -= 1
            out.append("**" if depth == 0 else "")
    out.append(text[pos:])
    return "".join(out) if depth == 0 else text.replace("**", "")


def plain(text: str) -> str:
    """The answer without emphasis markers (for a pipe or a file)."""
    return _BOLD.sub(r"\1", tidy(text)).replace("**", "")


class AnswerView:
    """Shows the answer as it streams: live-rendered Markdown in a terminal; elsewhere
    nothing until ``finish``, which prints the final answer as plain text."""

    def __init__(self, out: TextIO | None = None, terminal: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.terminal = self.out.isatty() if terminal is None else terminal
        self.text = ""
        self._live: Any = None

    def __enter__(self) -> AnswerView:
        return self

    def _start(self) -> None:
        """The live display, from the first piece of the answer (nothing redraws while it is awaited)."""
        if self._live is None:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(
                console=Console(file=self.out, force_terminal=True),
                refresh_per_second=8,
                transient=False,
            )
            self._live.__enter__()

    def _markdown(self, text: str) -> Any:
        from rich.markdown import Markdown

        # the view writes raw: it cleans what it shows, and a link quoted from a document
        # shows as written, never as a hyperlink whose label hides its target
        return Markdown(unlinked(tidy(terminal_safe(text))))

    def feed(self, piece: str) -> None:
        self.text += piece
        if self.terminal:
            self._start()
            self._live.update(self._markdown(self.text))

    def finish(self, final: str) -> None:
        """The final answer (the streamed draft may have given way to a quote, or been renumbered)."""
        if self.terminal:
            self._start()
            self._live.update(self._markdown(final), refresh=True)
        else:
            print(plain(terminal_safe(final)), file=self.out)

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
