"""Reading settings from outside: environment overrides, misspelt names, one-line errors.

Apart from settings.py so the model stays short; nothing here imports the model, the field
names are passed in.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Iterable, Mapping

from pydantic import ValidationError

ENV_PREFIX = "LOCALCRAG_"


def env_name(field: str) -> str:
    """``top_k`` -> ``LOCALCRAG_TOP_K``."""
    return ENV_PREFIX + field.upper()


def env_overrides(fields: Iterable[str], environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """Every setting named as ``LOCALCRAG_<FIELD>`` in the environment, as a TOML value when it
    reads as one (``8``, ``0.6``, ``true``, ``"x"``), else as the plain string (``fusion``)."""
    environ = os.environ if environ is None else environ
    out: dict[str, object] = {}
    for field in fields:
        raw = environ.get(env_name(field))
        if raw is None or raw.strip() == "":
            continue
        try:
            out[field] = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            out[field] = raw.strip()
    return out


def check_names(raw: Mapping[str, object], known: Iterable[str]) -> None:
    """A misspelt setting ("topk") is an error naming the right one; a name that matches
    nothing (e.g. from another version) is ignored."""
    known = list(known)
    for key in raw:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
            if close:
                raise ValueError(f"unknown setting {key!r} (did you mean {close[0]!r}?)")


def one_line(exc: Exception) -> str:
    """pydantic's multi-line report as `name = value: reason; ...` (no URLs, no types)."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            name = ".".join(str(x) for x in err.get("loc", ()))
            parts.append(f"{name} = {err.get('input')!r}: {msg}" if name else msg)
        return "; ".join(parts)
    lines = str(exc).splitlines()
    return " ".join(lines[:3]) if lines else type(exc).__name__
