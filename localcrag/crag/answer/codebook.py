"""A table's codebook: the passage of another file that says what the table's columns mean.

A data file's header names its columns ("Army", "Disease"); what they count is written in
its codebook ("Army: Estimated average monthly strength of the British army"), often an
HTML or PDF page beside it. Questions are asked in the codebook's words ("the estimated
average monthly strength of the army in October 1854"), so a row binds one only read with
its columns' definitions. Retrieval adds the codebook of each table whose rows it found
(``Retriever.codebooks``), and binding reads each row with the definitions of its columns
(``codebooks``). A row kept as evidence keeps its codebook beside it: the answer quotes
the row and the line that says what its column means. A codebook is known by what it holds, not by its name: a passage of
another file, itself no table, that defines at least ``MIN_DEFINED`` of the table's columns
the way a glossary does (``glossary.definition_lines``). A data file's documentation says
what the table as a whole holds ("The number of telephones in various regions of the world
(in thousands)" for WorldPhones.csv, whose columns are regions): a short passage of another
file whose first lines name the data file (``documents``); every row is read with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Protocol

from localcrag.crag.answer.cells import parse_row
from localcrag.crag.answer.glossary import definition_lines
from localcrag.textutil.labels import split_heading

MIN_DEFINED = 2  # columns a passage must define to be a table's codebook
QUERY_COLUMNS = 12  # the columns a codebook is searched for by (its first ones)


def columns(text: str) -> list[str]:
    """The column names of the table rows in ``text`` (``ingest/tables.row_line``), in
    order, each once; none for a text with no row."""
    out: dict[str, None] = {}
    for line in text.split("\n"):
        row = parse_row(line)
        if row is not None and len(row.cells) > 1:
            out.update((name.strip(), None) for name, _ in row.cells)
    return list(out)


def defined(text: str, names: Iterable[str]) -> dict[str, str]:
    """The line of ``text`` that defines each of ``names`` it defines ({"Army": "Army:
    Estimated average monthly strength of the British army"})."""
    out = {}
    for name in names:
        if lines := definition_lines(name, text):
            out[name] = lines[0]
    return out


def is_codebook(text: str, names: Sequence[str]) -> bool:
    """Does ``text`` define at least MIN_DEFINED of ``names`` (all of them, for fewer), and
    hold no table rows itself (a table's own rows say "Army: 30643", a value)?"""
    if not names or columns(text):
        return False
    return len(defined(text, names)) >= min(MIN_DEFINED, len(names))


class Passage(Protocol):
    """What ``codebooks`` reads of a passage (a Chunk or an Evidence item)."""

    @property
    def text(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def heading(self) -> str | None: ...


@dataclass(frozen=True)
class Codebook:
    """What a table's codebooks say: its columns' definitions, what the table as a whole
    holds (its documentation's description), and which passages say so (0-based indices
    into the passages read), so that a row kept as evidence keeps them."""

    defs: dict[str, str]
    passages: tuple[int, ...]
    about: str = ""  # "The number of telephones in various regions of the world ..."


DOC_WORDS = 80  # a documentation passage is short: its description, not a manual's chapter
STEM_CHARS = 5  # a data file's name this long at least names it ("data.csv" names nothing)


def documents(text: str, source: str) -> bool:
    """Is ``text`` (a passage of another file) the documentation of the data file
    ``source``: a short passage, no table itself, whose first lines name the file's stem
    as a word ("WorldPhones | R Documentation" for WorldPhones.csv) and that describes in a
    sentence?"""
    stem = PurePath(source).stem
    if len(stem) < STEM_CHARS or len(text.split()) > DOC_WORDS or columns(text):
        return False
    lines = [ln.strip() for ln in text.strip().split("\n")]
    if not any(len(ln.split()) >= 5 and ln.endswith(".") for ln in lines):
        return False  # no sentence that describes: a usage line, a code example
    head = "\n".join(lines[:4])
    return re.search(rf"(?<![\w.-]){re.escape(stem)}(?![\w-])", head, re.I) is not None


def codebooks(passages: Sequence[Passage]) -> dict[str, Codebook]:
    """For each table among ``passages`` (by source), the definitions of its columns that
    the other passages, its codebooks, give: {"/d/Nightingale.csv": Codebook({"Army":
    "Army: ..."}, (3,))}."""
    tables: dict[str, list[str]] = {}
    rows = [columns(p.text) for p in passages]
    for p, cols in zip(passages, rows):
        if cols:
            tables.setdefault(p.source, [])
            tables[p.source] += [c for c in cols if c not in tables[p.source]]
    out: dict[str, Codebook] = {}
    for source, names in tables.items():
        defs: dict[str, str] = {}
        where, about = [], []
        for i, p in enumerate(passages):
            if p.source == source or rows[i]:  # a table's own rows say "Army: 30643", a value
                continue
            found = defined(p.text, names)
            if len(found) >= min(MIN_DEFINED, len(names)):
                where.append(i)
                for name, line in found.items():
                    defs.setdefault(name, line)
            elif documents(p.text, source):
                where.append(i)
                about.append(" ".join(p.text.split()))
            else:
                continue
            # the title of the document that defines or describes the table says what the
            # table is ("The California Test Score Data Set" for Caschool.csv's rows)
            if (title := split_heading(p.heading)[0]) and title not in about:
                about.insert(0, title)
        if where:
            out[source] = Codebook(defs, tuple(where), " ".join(about))
    return out


def row_definitions(text: str, defs: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The definitions of the columns of the row ``text`` (its own columns only)."""
    return tuple((name, defs[name]) for name in columns(text) if name in defs)
