"""One setting's value as a line of TOML and back: what ``localcrag config`` prints and the
settings screen's text boxes show and read."""

from __future__ import annotations

import json
import re
import tomllib


def read_value(raw: str) -> object:
    """What one typed value means: a TOML value when it reads as one, else the plain string."""
    try:
        return tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


def toml_value(value: object) -> str:
    """A value as written after ``name = `` on one TOML line (a table inline), so a line of
    ``localcrag config`` pastes into the file and the settings screen shows what it saves."""
    if isinstance(value, dict):
        keys = {
            k: k if re.fullmatch(r"[A-Za-z0-9_-]+", str(k)) else json.dumps(str(k)) for k in value
        }
        return "{" + ", ".join(f"{keys[k]} = {toml_value(v)}" for k, v in value.items()) + "}"
    import tomli_w

    return tomli_w.dumps({"v": value}).strip().removeprefix("v = ")
