"""Names and errors shared by every parser (apart from parse.py so format modules never import it)."""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import NamedTuple

from localcrag.errors import BadDocument
from localcrag.ingest.about import About

Paragraphs = list[tuple[str, int | None]]  # (text, heading level or None)


class RawPage(NamedTuple):
    """One page as a reader returns it; ``unit``/``scope`` as in ``types.Page`` (a reader
    of printed pages may return plain (number, paragraphs) pairs)."""

    number: int
    paras: Paragraphs
    unit: str = ""
    scope: str = ""


class Read(NamedTuple):
    """What a reader returns: its pages, its warning lines and what the document is (a
    reader that cannot tell returns a plain (pages, warnings) pair)."""

    pages: list
    warnings: list[str]
    about: About = About()


# in a warning line about an indexed document: pages of it read neither from their text
# layer nor by OCR (``localcrag doctor`` names the documents whose ingest said so)
NOT_READ = "not read"


def label(path: Path) -> str:
    """How a file is named in messages: relative to the cwd when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return str(path)


def bad(path: Path, reason: str, hint: str | None = None) -> BadDocument:
    return BadDocument(f"{label(path)}: {reason}", hint)


def broken_link(path: Path) -> BadDocument | None:
    """The one line for a symlink that leads nowhere (a loop, or a missing target), else None."""
    import errno
    import os

    try:
        os.stat(path)
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return bad(
                path,
                "symlink loop (the link leads back to itself)",
                "remove the link or point it at a file",
            )
        if os.path.islink(path):
            return bad(
                path,
                f"broken symlink (its target {os.readlink(path)} does not exist)",
                "remove the link or restore its target",
            )
        return None


SOURCE_ESCAPE = re.compile(r"\\x([89a-f][0-9a-f])")


def source_key(path: Path | str) -> str:
    """A file's path as the index stores it: the path itself, except that bytes of a name
    that are not UTF-8 (os.fsdecode's surrogates, which LanceDB cannot store) are written
    as ``\\xe9``; ``source_path`` turns that back into the file's path."""
    text = str(path)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        import os

        return os.fsencode(text).decode("utf-8", "backslashreplace")


def source_path(source: str) -> Path:
    """The file a stored ``source`` names (undoing ``source_key``)."""
    path = Path(source)
    if "\\x" not in source or path.exists():
        return path
    return Path(SOURCE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m[1], 16)), source))  # fsdecode's form


# --- text helpers shared by the PDF and OCR readers ---------------------------------------

_BULLET = re.compile(r"(?:[-*\u2022\u25aa\u25e6\u2023\u2013\u00b7]|\d{1,3}[.)])\s")
_KEEP_HYPHEN = {
    "to",
    "and",
    "or",
    "based",
    "like",
    "wise",
    "level",
    "scale",
    "term",
    "time",
    "free",
    "specific",
    "aware",
    "driven",
    "wide",
    "art",
    "end",
    "the",
    "of",
}


def join_lines(lines: list[str]) -> str:
    """Wrapped lines to one paragraph; "transduc- tion" joins, "English- to-German" keeps."""
    out = lines[0]
    for nxt in lines[1:]:
        head = nxt.split(" ", 1)[0]
        if (
            out.endswith("-")
            and out[-2:-1].isalpha()
            and nxt[:1].islower()
            and not ("-" in head or head.rstrip(".,;:") in _KEEP_HYPHEN)
        ):
            out = out[:-1] + nxt
        else:
            out += ("\n" if _BULLET.match(nxt) else " ") + nxt
    return out


def page_ranges(numbers: list[int]) -> str:
    parts, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(n) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(parts)


_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]


def decode(path: Path, data: bytes, declared: str | None = None) -> tuple[str, list[str]]:
    """Bytes to text by the module's encoding policy; returns (text, warnings)."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(enc), []
            except UnicodeDecodeError:
                raise bad(
                    path,
                    f"invalid {enc.upper()} text despite its byte-order mark",
                    "re-save it as UTF-8",
                ) from None
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return data.decode(declared), []
        except (LookupError, UnicodeDecodeError):
            pass
    if b"\x00" in data[:8192]:
        raise bad(
            path, "binary data, not text", "check that the file extension matches its content"
        )
    text = data.decode("utf-8", errors="replace")
    n_bad = text.count("\ufffd")
    if n_bad * 1000 > len(data):
        raise bad(path, "not UTF-8 text", "save it as UTF-8, e.g. iconv -f cp1252 -t utf-8")
    return text, [f"{label(path)}: {n_bad} invalid UTF-8 byte(s) replaced"]
