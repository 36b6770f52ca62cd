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


def figure_kind(text: str, end: int) -> Kind | None:
    """The kind of quantity the unit written right after ``end`` in ``text`` measures
    ("-5 dBm" -> power), or None: no unit, a word pint does not know, or a dimensionless one
    (a percentage or decibels compare with anything)."""
    m = _UNIT.match(text, end)
    if not m or m.group(1).lower() in STOPWORDS:  # "3 in 2019", "4 at a time": no units
        return None
    dims = _dimension(m.group(1))
    return dims or None
