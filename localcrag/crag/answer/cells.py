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

from localcrag.textutil import MONTHS, STOPWORDS, base_form, holds, identifiers, stem

# Written by ingest/tables.row_line: "<where>, row <n>[ (<label>)]: <name>: <value>; ...".
# A label may hold one level of parentheses of its own ("P(T<=t) two-tail").
_ROW = re.compile(
    r"^(?P<where>[^\n]+?), row (?P<n>\d+)"
    r"(?: \((?P<label>(?:[^()\n]|\([^()\n]*\))*)\))?: (?P<body>.+?)\.?$"
)
_MONTH = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DATES = (
    re.compile(r"\b(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})\b"),
    re.compile(r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b", re.I),
    re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>\d{4})\b", re.I),
)


def dates(text: str) -> dict[tuple[int, int, int], str]:
    """The calendar dates a text writes out, as (year, month, day) -> the text that wrote it:
    "2012/01/04", "2012-01-04", "Jan 1 2008", "1 January 2008", "March 3, 2008". A date is one
    key however it is written, so a question's "2008-01-01" names the row "Jan 1 2008"."""
    out: dict[tuple[int, int, int], str] = {}
    for pattern in _DATES:
        for m in pattern.finditer(text):
            g = m.groupdict()
            month = MONTHS[g["mon"].lower()] if g.get("mon") else int(g["m"])
            if 1 <= month <= 12 and 1 <= int(g["d"]) <= 31:
                out.setdefault((int(g["y"]), month, int(g["d"])), m.group(0))
    return out


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
    # (column name, value); a label | value row: ((label, value),)
    cells: tuple[tuple[str, str], ...]


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


_YES = frozenset("yes y true".split())
_NO = frozenset("no n false none".split())
# a question that asks yes or no ("Did Prince have kids?"): its answer may be a yes/no cell
_YES_NO_ASKED = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have|had|can|could)\b", re.I)


def _written(value: str, question: str) -> bool:
    """Does the question itself write ``value`` ("the Alpha version": Alpha), as whole words?
    What the question gives is a constraint on the row, never its answer."""
    v = value.strip()
    return bool(re.search(r"[A-Za-z]", v)) and bool(
        re.search(rf"(?<!\w){re.escape(v)}(?!\w)", question, re.I)
    )


def flag(value: str) -> bool | None:
    """A yes/no cell's value as True or False ("yes", "no", "true", "none"); None for any other."""
    low = value.strip().lower()
    return True if low in _YES else False if low in _NO else None


def cell_answer(
    question: str, sentences: Sequence[str], chosen: Sequence[str | None] = ()
) -> Cell | None:
    """The cell of the row and column ``question`` names among ``sentences``, or None.
    ``chosen``: per sentence, the value binding read in the column the question names with
    the table's codebook ("Disease: deaths from zymotic diseases" for "army deaths from
    zymotic disease"); where there is one, no other column of that row is the answer.

    A row is named when its values hold every identifier of the question that is not in its
    place (the file name "TSLA" is) nor a column's name ("What does GNPDEFL mean?" names a
    column, no row), and every date the question writes (in any of the forms ``dates``
    reads); or, for a question without one, by its label's words, or as the only row of its
    table with a value in the column the question names ("the F")."""
    asked = _terms(question)
    when = dates(question)
    in_dates = " ".join(when.values()).lower()
    ids = [i.lower() for i in identifiers(question) if i.lower() not in in_dates]
    rows = [(i, r) for i, r in enumerate(map(parse_row, sentences)) if r is not None]
    filled: dict[tuple[str, str], int] = {}
    names: set[str] = set()
    for _, row in rows:
        for name, _value in row.cells:
            filled[(row.where, name)] = filled.get((row.where, name), 0) + 1
            names.add(name.lower())
    ids = [i for i in ids if i not in names]
    best: tuple[tuple[float, ...], Cell] | None = None
    rivals: set[tuple[str, int]] = set()  # the rows of the best rank
    for index, row in rows:
        where = row.where.lower()
        own = [i for i in ids if i not in where]
        days = [d for d in when if d not in dates(row.where)]
        keyed = len(row.cells) == 1 and row.label == row.cells[0][0]  # "R Square: 0.91"
        values = [row.label] * (keyed or row.label not in [v for _, v in row.cells]) + [
            v for _, v in row.cells
        ]
        keys = [v for v in values if any(holds(v, i) for i in own) or set(dates(v)) & set(days)]
        held = sum(any(holds(v, i) for v in values) for i in own)
        held_days = sum(any(d in dates(v) for v in values) for d in days)
        if held < len(own) or held_days < len(days):
            continue
        held += held_days
        by_label = _covered(row.label, asked)
        matched = len(_terms(row.label) & asked)
        # the words that name the file or table ("the deaths spreadsheet") name no column of
        # it in part ("Date of death" for "how old was he, in the deaths spreadsheet?"); a
        # column the question names in full still is ("weather" in seattle-weather.csv)
        columns_asked = asked - _terms(row.where)
        pick = chosen[index] if index < len(chosen) else None
        for col, (name, value) in enumerate(row.cells):
            if value in keys or (col == 0 and value == row.label) or _written(value, question):
                continue  # the key the question gives is not its answer
            if pick is not None and value != pick:
                continue  # binding read the asked column with its definition: another
            if flag(value) is not None and not _YES_NO_ASKED.match(question):
                continue  # "Has kids: no" says which rows "had no kids": a constraint
            full = _covered(name, asked) == 1.0
            named = by_label if keyed else 1.0 if full else _covered(name, columns_asked)
            alone = filled[(row.where, name)] == 1 and _covered(row.where, asked) > 0
            if named < 0.5 or not (held or by_label >= 0.5 or alone):
                continue
            rank = (
                held,
                named,
                by_label,
                matched,  # the label that names more of the question: "Pooled Variance"
                _covered(row.where, asked),
                len(_terms(name)),
            )  # the fuller name
            place = f"({row.where}, row {row.number})"
            if keyed:
                text = f"{name}: **{value}** {place}"
            elif len(row.cells) == 1:  # one value in the row: its label names it
                text = f"{row.label} ({name}): **{value}** {place}"
            else:
                label = ", ".join(keys) if held else row.label
                joint = "on" if dates(label) or re.fullmatch(r"\d{4}-\d\d-\d\d.*", label) else "of"
                text = f"{name} {joint} {label}: **{value}** {place}"
            if best is None or rank > best[0]:
                best = (rank, Cell(index, text, value))
                rivals = set()
            if rank == best[0]:
                rivals.add((row.where, row.number))
    # the key names more than one row ("Jan 1 2005" of five tickers, "Tesla" none of them):
    # which row is meant is not known, so no cell is the answer
    return best[1] if best and len(rivals) == 1 else None
