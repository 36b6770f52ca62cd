"""What the CLI writes: never an escape sequence or control character from outside text.

``localcrag`` prints document text (search snippets, quoted answers, source names), web
results and model output; any of them can hold ``ESC[2J`` or ``ESC]0;...BEL``. ``main`` writes
through ``SafeStream``, which passes every write through ``textutil.terminal_safe`` (the one
cleaner), so no command can forget it. JSON goes out through ``dumps``, which spells control
characters and undecodable file-name bytes as ``\\u`` escapes: the data stays exact and the
stream never needs to touch it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from localcrag.textutil import terminal_safe
from localcrag.textutil.terminal import INVISIBLE_CHARS

# json.dumps(ensure_ascii=False) escapes C0 itself; DEL, C1, lone surrogates (a file name's
# undecodable bytes, os.fsdecode's surrogateescape), bidi controls and zero-width characters
# it writes raw.
_RAW = re.compile(f"[\\x7f-\\x9f\\ud800-\\udfff{INVISIBLE_CHARS}]")


def dumps(obj: object, **kwargs) -> str:
    """``json.dumps`` as the CLI prints it: UTF-8 text, every control character escaped."""
    return _RAW.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(obj, ensure_ascii=False, **kwargs))


class SafeStream:
    """A text stream that cleans what it is given before the terminal (or a pipe) sees it."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        text = terminal_safe(text)
        try:
            return self.raw.write(text)
        except UnicodeEncodeError:  # a name's undecodable bytes: shown as \udcff, never a crash
            enc = getattr(self.raw, "encoding", None) or "utf-8"
            return self.raw.write(text.encode(enc, "backslashreplace").decode(enc))

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):  # flush, isatty, fileno, encoding, buffer ...
        return getattr(self.raw, name)


@contextmanager
def safe_output() -> Iterator[None]:
    """stdout and stderr cleaned for the duration (restored after, also in tests)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


@contextmanager
def command_session() -> Iterator[None]:
    """Around every command: files created private (0700 data home, 0600 files, whatever the
    umask), and stdout/stderr cleaned."""
    from localcrag.settings import data_dir
    from localcrag.settings.files import private_files

    private_files(data_dir())
    with safe_output():
        yield


def raw_stderr() -> TextIO:
    """The real stderr, for a progress bar that draws with escape codes of its own."""
    return getattr(sys.stderr, "raw", sys.stderr)


def raw_stdout() -> TextIO:
    """The real stdout, for a view that draws with escape codes of its own (it cleans the
    text it is given itself)."""
    return getattr(sys.stdout, "raw", sys.stdout)
