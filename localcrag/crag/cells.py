"""A table cell as the answer: the value at the row and column a question names.

Spreadsheet and CSV rows are indexed as sentences that name their place and each value's
column (``ingest/tables.row_line``): "TSLA.csv, row 3: Date: 2010-06-29; Close: 23.83." or
"stats.xlsx, sheet Output, ANOVA, row 12 (Regression): df: 1; F: 191.22." A question that
names a row (its key, "2010-06-29", or its label, "Regression") and a column ("closing
price", "F") is answered by that one cell, quoted with its column and row and where it is:

    Close on 2010-06-29: **23.83** (TSLA.csv, row 3) [1].

A row is named by an identifier of the question it holds verbatim (``identifiers``), or by
its label's words; a column by its name's words (single letters count: "F", "t Stat").
Nothing is answered from a row the question does not name, nor from a column it does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from localcrag.textutil import STOPWORDS, base_form, holds, identifiers, stem

# Written by ingest/tables.row_line: "<where>, row <n>[ (<label>)]: <name>: <value>; ...".
_ROW = re.compile(
    r"^(?P<where>[^\n]+?), row (?P<n>\d+)(?: \((?P<label>[^)\n]*)\))?: (?P<body>.+?)\.?$"
)


def _terms(text: str) -> set[str]:
    """Lower-case stems of a name's words, single letters kept ("Significance F": f)."""
    return {
        stem(base_form(w))
        for w in re.findall(r"[a-z0-9]+", text.lower())
        if w not in STOPWORDS or len(w) == 1
    }


def _covered(name: str, asked: set[str]) -> float:
    words = _terms(name)
    return len(words & asked) / len(words) if words else 0.0


@dataclass(frozen=True)
class Row:
    where: str
    number: int
    label: str  # the row label: the parenthesised one, else the first value
    cells: tuple[
        tuple[str, str], ...
    ]  # (column name, value); a label | value row: ((label, value),)


def parse_row(sentence: str) -> Row | None:
    """A sentence written by ``row_line``, or None."""
    m = _ROW.match(sentence.strip())
    if m is None:
        return None
    cells = tuple(tuple(p.split(": ", 1)) for p in m.group("body").split("; ") if ": " in p)
    if not cells:
        return None
    label = m.group("label") or (cells[0][0] if len(cells) == 1 else cells[0][1])
    return Row(m.group("where"), int(m.group("n")), label, cells)


@dataclass(frozen=True)
class Cell:
    index: int  # of the candidate sentence
    text: str  # "Close on 2010-06-29: **23.83** (TSLA.csv, row 3)"
    value: str


def cell_answer(question: str, sentences: Sequence[str]) -> Cell | None:
    """The cell of the row and column ``question`` names among ``sentences``, or None.

    A row is named when it holds every identifier of the question that is not in its place
    (the file name "TSLA" is), or, for a question without one, by its label's words, or as
    the only row of its table with a value in the column the question names ("the F")."""
    asked = _terms(question)
    ids = [i.lower() for i in identifiers(question)]
    rows = [(i, r) for i, r in enumerate(map(parse_row, sentences)) if r is not None]
    filled: dict[tuple[str, str], int] = {}
    for _, row in rows:
        for name, _value in row.cells:
            filled[(row.where, name)] = filled.get((row.where, name), 0) + 1
    best: tuple[tuple[int, float, float, float, int], Cell] | None = None
    for index, row in rows:
        own = [i for i in ids if i not in row.where.lower()]
        body = sentences[index].lower()[len(row.where) :]
        held = sum(holds(body, i) for i in own)
        if own and held < len(own):
            continue
        keyed = len(row.cells) == 1 and row.label == row.cells[0][0]  # "R Square: 0.91"
        by_label = _covered(row.label, asked)
        for col, (name, value) in enumerate(row.cells):
            if value.lower() in ids or (col == 0 and value == row.label):
                continue  # the key the question gives is not its answer
            named = by_label if keyed else _covered(name, asked)
            alone = filled[(row.where, name)] == 1 and _covered(row.where, asked) > 0
            if named < 0.5 or not (held or by_label >= 0.5 or alone):
                continue
            rank = (
                held,
                named,
                by_label,
                _covered(row.where, asked),
                len(_terms(name)),
            )  # the fuller name
            if keyed:
                text = f"{name}: **{value}** ({row.where}, row {row.number})"
            else:
                joint = "on" if re.fullmatch(r"\d{4}-\d\d-\d\d.*", row.label) else "of"
                text = f"{name} {joint} {row.label}: **{value}** ({row.where}, row {row.number})"
            if best is None or rank > best[0]:
                best = (rank, Cell(index, text, value))
    return best[1] if best else None
