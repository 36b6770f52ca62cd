"""What kind of quantity a question asks for, and what kind a figure's unit measures.

"How much does it weigh?" asks for a mass; "-5 dBm" is a power. The kinds are pint's
dimensions (its unit registry reads "dBm", "mA", "3.3 V", "°C", "lb", "GHz"), so no table of
units is written here. What is written is how English names a kind of quantity in a
question: the SI quantities by name ("voltage", "temperature", "frequency") and the few
words that ask for one without naming it ("weigh", "heavy", "hot"), each given by a unit of
that kind.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from localcrag.textutil.words import STOPWORDS

# a question's word -> a unit of the quantity it asks for (pint reads the unit's dimension)
_ASKS = {
    "weigh": "kg",
    "weighs": "kg",
    "weight": "kg",
    "heavy": "kg",
    "mass": "kg",
    "temperature": "kelvin",
    "hot": "kelvin",
    "cold": "kelvin",
    "warm": "kelvin",
    "voltage": "volt",
    "volts": "volt",
    "current": "ampere",
    "amps": "ampere",
    "power": "watt",
    "wattage": "watt",
    "frequency": "hertz",
    "length": "meter",
    "height": "meter",
    "width": "meter",
    "depth": "meter",
    "distance": "meter",
    "tall": "meter",
    "wide": "meter",
    "pressure": "pascal",
    "energy": "joule",
    "resistance": "ohm",
    "capacitance": "farad",
    "speed": "meter / second",
    "velocity": "meter / second",
}
# the nouns among them: "what voltage", "what is the supply current" ask for a figure
QUANTITY_NOUNS = tuple(
    w for w in _ASKS if w not in ("weigh", "weighs", "heavy", "hot", "cold", "warm", "tall", "wide")
)
Kind = frozenset[tuple[str, float]]  # a dimension as pint gives it: {"[mass]": 1}
_UNIT = re.compile(r"\s*([A-Za-zµμΩ°%][\w/°µμΩ]*)")


@cache
def _registry() -> Any:
    import pint  # ~0.7 s to build its registry: only when a question names a kind

    return pint.UnitRegistry()


@cache
def _dimension(unit: str) -> Kind | None:
    """The dimension of ``unit`` as pint reads it, or None when pint knows no such unit."""
    try:
        dims = _registry().parse_units(unit.replace("μ", "µ")).dimensionality
    except Exception:  # noqa: BLE001 - any word pint cannot read is no unit
        return None
    return frozenset(dict(dims).items())


def asked_kind(question: str, nouns: frozenset[str] = frozenset()) -> tuple[str, Kind] | None:
    """The word of ``question`` that asks for a kind of quantity and that kind ("How much
    does it weigh?" -> ("weigh", mass)), or None. "current" counts only when ``nouns`` (the
    question's words read as nouns) holds it: "the supply current", not "the current one"."""
    for word in re.findall(r"[a-z]+", question.lower()):
        unit = _ASKS.get(word)
        if unit and (word != "current" or word in nouns) and (kind := _dimension(unit)):
            return word, kind
    return None


# a range's or a choice's second figure, read past to the unit both share ("0 to 47 dB",
# "2-20 MHz", "0 or 14 dB")
_RANGE = re.compile(r"\s*(?:to|or|and|-|\u2013|\u2014)\s*[-+]?\d[\d,]*(?:\.\d+)?")


def _unit_after(text: str, end: int) -> str | None:
    """The word written right after the figure ending at ``end`` (past a range's second
    figure), when it is no stop word ("3 in 2019", "4 at a time": no units)."""
    if r := _RANGE.match(text, end):
        end = r.end()
    m = _UNIT.match(text, end)
    if not m or m.group(1).lower() in STOPWORDS:
        return None
    scale = _SCALE.match(text, m.end()) if m.group(1).lower() in ("degree", "degrees") else None
    return f"degree_{scale.group(1).capitalize()}" if scale else m.group(1)


# "175 degrees Celsius": the scale names the unit (pint's "degree_Celsius"), not the angle
_SCALE = re.compile(r"\s+(celsius|fahrenheit|kelvin)\b", re.I)


def figure_kind(text: str, end: int) -> Kind | None:
    """The kind of quantity the unit written right after ``end`` in ``text`` measures
    ("-5 dBm" -> power, "0 to 47 dB" read to its unit), or None: no unit, a word pint does
    not know, or a dimensionless one (:func:`ratio_after` tells that one apart)."""
    unit = _unit_after(text, end)
    return (_dimension(unit) or None) if unit else None


def ratio_after(text: str, end: int) -> bool:
    """Is the figure ending at ``end`` written with a unit of no dimension: a ratio ("dB",
    "%")? Such a figure measures no mass, length or time; decibels measure a power, voltage
    or current against another (:func:`ratio_measures`)."""
    unit = _unit_after(text, end)
    return bool(unit) and _dimension(unit or "") == frozenset()


def ratio_measures(kind: Kind) -> bool:
    """Can a ratio (decibels, a percentage of a rating) give a quantity of ``kind``: a
    power, a voltage or a current, which datasheets state as gains and levels?"""
    return any(kind == _dimension(u) for u in ("watt", "volt", "ampere"))


# "in mAh", "in dBm", "in seconds": the unit the question wants its figure in
_IN_UNIT = re.compile(r"\bin\s+([A-Za-zµμΩ°][\w/°µμΩ]*)")


def named_unit(question: str) -> tuple[str, Kind] | None:
    """The unit ``question`` asks its figure in and that unit's kind ("What battery capacity,
    in mAh, ..." -> ("mAh", charge)), or None: no "in <unit>", or one pint does not read as a
    unit of a dimension ("in Iowa", "in percent", "in a table")."""
    for m in _IN_UNIT.finditer(question):
        word = m.group(1)
        if word.lower() in STOPWORDS or len(word) < 2:
            continue
        if kind := _dimension(word):
            return word, kind
    return None


def writes_unit(text: str, kind: Kind) -> bool:
    """Does ``text`` write a unit of ``kind`` ("Unit: mAh", "Speed (km/h)", "20 m/s"): a
    word of two characters or more, no stop word, that pint reads as of that kind?"""
    for m in re.finditer(r"(?<![\w/])[A-Za-zµμΩ°][\w/°µμΩ]+", text):
        word = m.group(0)
        if word.lower() not in STOPWORDS and _dimension(word) == kind:
            return True
    return False
