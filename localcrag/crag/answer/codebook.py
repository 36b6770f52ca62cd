"""A table's codebook: the passage of another file that says what the table's columns mean.

A data file's header names its columns ("Army", "Disease"); what they count is written in
its codebook ("Army: Estimated average monthly strength of the British army"), often an
HTML or PDF page beside it. Questions are asked in the codebook's words ("the estimated
average monthly strength of the army in October 1854"), so a row binds one only read with
its columns' definitions. Retrieval adds the codebook of each table whose rows it found
(``Retriever.codebooks``), and binding reads each row with the definitions of its columns
(``definitions``). A codebook is known by what it holds, not by its name: a passage of
another file, itself no table, that defines at least ``MIN_DEFINED`` of the table's columns
the way a glossary does (``glossary.definition_lines``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from localcrag.crag.answer.cells import parse_row
from localcrag.crag.answer.glossary import definition_lines

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
    """What ``definitions`` reads of a passage (a Chunk or an Evidence item)."""

    @property
    def text(self) -> str: ...
    @property
    def source(self) -> str: ...


def definitions(passages: Sequence[Passage]) -> dict[str, dict[str, str]]:
    """For each table among ``passages`` (by source), the definitions of its columns that
    the other passages, its codebooks, give: {"/d/Nightingale.csv": {"Army": "Army: ..."}}."""
    tables: dict[str, list[str]] = {}
    for p in passages:
        if cols := columns(p.text):
            tables.setdefault(p.source, [])
            tables[p.source] += [c for c in cols if c not in tables[p.source]]
    out: dict[str, dict[str, str]] = {}
    for source, names in tables.items():
        for p in passages:
            if p.source != source and is_codebook(p.text, names):
                found = out.setdefault(source, {})
                for name, line in defined(p.text, names).items():
                    found.setdefault(name, line)
    return out


def row_definitions(text: str, defs: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The definitions of the columns of the row ``text`` (its own columns only)."""
    return tuple((name, defs[name]) for name in columns(text) if name in defs)
