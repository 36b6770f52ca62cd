"""Text from outside (documents, web results, model output) made safe to show on a terminal.

A document can hold escape sequences that clear the screen (``ESC[2J``), set the window
title (``ESC]0;...BEL``), move the cursor or hide text; a terminal obeys them. ``terminal_safe``
removes them whole, and every other control character with them, before such text reaches
the CLI's output, the TUI or its trace. The stored text is never changed: only what is shown.

Some characters are not commands but still disguise text: bidi controls reorder what follows
("\u202e05\u202c mg" shows as "50 mg") and zero-width characters hide inside a word or a
name. ``visible`` spells them out (``\u202e``) in all shown text, as ``shown`` spells every
control character of a file name. A Markdown renderer turns ``[label](target)`` into a link
whose label is not where it goes; ``unlinked`` escapes quoted text so that it shows as written.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

# Whole sequences first (so their parameters do not show up as stray text), then any control
# character left: C0 but tab and newline, DEL, and C1 (0x80-0x9f, which some terminals read
# as 8-bit ESC sequences: 0x9b is CSI, 0x9d OSC).
_CSI_TEXT = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # ESC [ params intermediates final
_SEQUENCE = re.compile(
    _CSI_TEXT
    + r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"  # OSC, DCS, SOS, PM, APC .. BEL/ST
    r"|\x1b[ -/]*[0-~]"  # any other escape (ESC c resets the terminal, ESC 7 saves the cursor)
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Invisible characters that change how the text around them reads: the Arabic letter mark,
# the Mongolian vowel separator, zero-width space/non-joiner/joiner, LRM/RLM, the bidi
# embeddings, overrides and isolates (202A-202E, 2066-2069), word joiner and invisible
# operators (2060-2064), the deprecated format controls (206A-206F), the BOM / zero-width
# no-break space and the interlinear annotation marks.
INVISIBLE_CHARS = (
    "\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
_INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]")
_UNSAFE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{INVISIBLE_CHARS}]")


def _spelled(char: str) -> str:
    """One character as Python spells it in a string literal: ``\\n``, ``\\x1b``, ``\\u202e``."""
    return repr(char)[1:-1]


def visible(text: str) -> str:
    """``text`` with every bidi control and zero-width character spelled out (``\\u202e``), so
    what is shown reads in the order it is stored and nothing hides inside a word."""
    return _INVISIBLE.sub(lambda m: _spelled(m[0]), text)


def terminal_safe(text: str) -> str:
    """``text`` without escape sequences or control characters (tab and newline kept; a
    carriage return becomes a line break, so it cannot overwrite what was shown), and with
    bidi controls and zero-width characters made ``visible``."""
    if not _UNSAFE.search(text):  # most text has none
        return text
    return visible(_stripped(text))


def _stripped(text: str) -> str:
    """``text`` without escape sequences or control characters (bidi and zero-width kept)."""
    if not _CONTROL.search(text):
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


_CSI = re.compile(_CSI_TEXT)
_STRING_START = re.compile(r"\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]")  # OSC and kin: end at BEL/ST
_LAST_START = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f][^\x1b\x90\x98\x9b\x9d\x9e\x9f]*\Z")
_HOLD = 512  # a longer unfinished "sequence" is text, not a sequence: let it go


def terminal_safe_prefix(text: str) -> tuple[str, str]:
    """(the cleaned part of streamed ``text``, its unfinished tail). A model streams an escape
    sequence in several pieces ("\\x1b", "]0;", "title", "\\x07"); cleaning each piece alone
    would leave "]0;title" on screen. Keep the tail and put the next piece in front of it.
    Bidi and zero-width characters stay (the sentence check compares the text with the
    evidence as stored); whatever shows the text makes them ``visible``."""
    m = _LAST_START.search(text)
    if m and len(m[0]) < _HOLD:
        tail = m[0]
        if _STRING_START.match(tail):
            finished = re.search(r"[\x07\x9c]|\x1b\\", tail) is not None
        elif tail.startswith(("\x1b[", "\x9b")):
            finished = _CSI.match(tail) is not None
        else:
            finished = _SEQUENCE.match(tail) is not None
        if not finished:
            return _stripped(text[: m.start()]), tail
    return _stripped(text), ""


def shown(name: str) -> str:
    """A file name as one printable line: a newline or other control character in a name is
    printed escaped ("a\\nb"), and so are a name's undecodable bytes ("\\udcff"), so one
    entry never reads as two and nothing in a name reaches the terminal as a command. Bidi
    and zero-width characters are not printable either: spelled as ``visible`` spells them."""
    return "".join(c if c.isprintable() or c == " " else _spelled(c) for c in name)


# What a CommonMark renderer (Rich's in the CLI, Textual's in the TUI) reads as the start of a
# link, an image, a link reference definition, an autolink, raw HTML or a character reference
# ("&#x202e;" would become the bidi control itself), and the backslash that escapes them. A
# "]" cannot open anything: left as it is, so a bare URL before it (which Textual's parser
# links, label and target the same) does not end in a stray backslash.
_MARKDOWN_ACTIVE = re.compile(r"[\\\[<&]")


def unlinked(text: str) -> str:
    """``text`` for a Markdown renderer, with links, images, autolinks, HTML and character
    references shown as written (backslash-escaped): a document's
    ``[https://bank.example](https://evil.example)`` must not become a link whose label hides
    its target. Bold and other emphasis still render."""
    return _MARKDOWN_ACTIVE.sub(lambda m: "\\" + m[0], text)


def terminal_safe_fields(value: object) -> object:
    """``value`` with every string in it made terminal-safe: strings, tuples, lists, dicts and
    (frozen) dataclasses, rebuilt only where something changed; anything else as it is."""
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, (tuple, list)):
        items = [terminal_safe_fields(v) for v in value]
        if not any(a is not b for a, b in zip(items, value)):
            return value
        kind: Any = type(value)  # a named tuple takes its fields one by one
        return kind(*items) if hasattr(value, "_fields") else kind(items)
    if isinstance(value, dict):
        new = {k: terminal_safe_fields(v) for k, v in value.items()}
        return new if any(new[k] is not value[k] for k in value) else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            if f.init:
                old = getattr(value, f.name)
                cleaned = terminal_safe_fields(old)
                if cleaned is not old:
                    changes[f.name] = cleaned
        return dataclasses.replace(value, **changes) if changes else value
    return value
