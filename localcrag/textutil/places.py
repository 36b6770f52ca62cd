"""Regions named in words and written as codes: "Texas" in a question, "TX" in a table's cell.

Tables of states, provinces and counties write each as its ISO 3166-2 code (a results table's
"STATE: TX"); people ask by name. The names and codes are pycountry's (ISO 3166-2, every
country's first-level subdivisions), so no list is written here. A code stands for its region
only as a cell's whole value (``": TX;"``, ``"(TX)"``, ``"| TX |"``): a two-letter word of
prose ("IN", "OR", "ME") is no region.
"""

from __future__ import annotations

import re
from functools import cache

# a run of one to four capitalised words: where a region's name can be
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+)?[A-Z][a-z]+){0,3}\b")


@cache
def _subdivisions() -> tuple[tuple[str, str, str], ...]:
    """Every subdivision as (country, code, name in lower case), the code the part after
    the country's ("US-TX" -> "TX"); alphabetic codes of two or three letters only."""
    import pycountry  # ~0.2 s to read its tables: only when a question names a region

    out = []
    for sub in pycountry.subdivisions:
        country, code = sub.code.split("-", 1)
        if code.isalpha() and 2 <= len(code) <= 3:
            out.append((country, code.upper(), sub.name.lower()))
    return tuple(out)


@cache
def _codes() -> dict[str, frozenset[str]]:
    """Each subdivision's name (lower case) -> its codes."""
    out: dict[str, set[str]] = {}
    for _, code, name in _subdivisions():
        out.setdefault(name, set()).add(code)
    return {name: frozenset(codes) for name, codes in out.items()}


def region_codes(name: str) -> frozenset[str]:
    """The codes of the region named ``name`` ("Texas" -> {"TX"}); empty if none is so named."""
    return _codes().get(" ".join(name.split()).lower(), frozenset())


def regions_named(text: str) -> list[tuple[str, frozenset[str]]]:
    """The regions ``text`` names, as written, with their codes, in order ("Alabama" ->
    ("Alabama", {"AL"})); the longest name first: "York" of "New York" is no region."""
    out: list[tuple[str, frozenset[str]]] = []
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        used: set[int] = set()
        for n in range(len(words), 0, -1):
            for i in range(len(words) - n + 1):
                span = set(range(i, i + n))
                name = " ".join(words[i : i + n])
                codes = region_codes(name) if not span & used else frozenset()
                if codes:
                    used |= span
                    out.append((name, codes))
    return out


def code_as_cell(code: str, text: str) -> bool:
    """Is ``code`` the whole value of a cell of ``text`` (a row's sentence "STATE: TX;", a row
    label "(TX)", a Markdown cell "| TX |") or one of a list's labels ("; LA: Ajamu Baraka",
    "AL, ID, KY: Samson Kpadenou")? Capitals exactly: "in" is no Indiana."""
    cell = r"(?:^|[:(|]\s*)" + re.escape(code) + r"(?=\s*(?:[;)|]|\.(?:\s|$)|$))"
    if re.search(cell, text, re.M):
        return True
    labels = set(_LABEL.findall(text))
    if code not in labels:
        return False
    # a list's labels are regions when at least two others are codes of the same country
    # ("AND, OR: logic" is no list of Oregon's neighbours)
    countries = _countries().get(code, frozenset())
    return any(
        len({c for c in labels - {code} if country in _countries().get(c, ())}) >= 2
        for country in countries
    )


# a label of a list: two or three capitals after a start, "(", ";" or ",", before ":" or ","
_LABEL = re.compile(r"(?:^|[;(,]\s*)([A-Z]{2,3})(?=\s*(?::\s|,\s*[A-Z]{2,3}\b))", re.M)


@cache
def _countries() -> dict[str, frozenset[str]]:
    """Each subdivision code -> the countries that use it ("TX" -> {"US"})."""
    out: dict[str, set[str]] = {}
    for country, code, _ in _subdivisions():
        out.setdefault(code, set()).add(country)
    return {code: frozenset(c) for code, c in out.items()}
