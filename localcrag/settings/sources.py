"""Where settings come from besides the code: the environment and the TOML file, and the
one-line reports when either holds something wrong.

pydantic-settings reads the nested names (``LOCALCRAG_RETRIEVAL__TOP_K``) itself. Two sources
here add what users had before the groups, derived from the model (each field name is unique
across groups) rather than from a table: the flat variables (``LOCALCRAG_TOP_K``), and flat
keys in config.toml (``top_k = 8`` at the top), both mapped into their group. Within one
source, a grouped name beats a flat one for the same setting.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from pydantic_settings import PydanticBaseSettingsSource, TomlConfigSettingsSource

from localcrag.errors import LocalcragError
from localcrag.settings.values import read_value

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

ENV_PREFIX = "LOCALCRAG_"
NESTED = "__"


def groups_of(cls: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """The group fields of a settings class, in declared order: name -> group model."""
    out = {}
    for name, info in cls.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out[name] = kind
    return out


def flat_index(cls: type[BaseModel]) -> dict[str, str]:
    """Every setting's own name -> its group (names are unique across groups)."""
    return {name: group for group, kind in groups_of(cls).items() for name in kind.model_fields}


def flat_env(name: str) -> str:
    """``top_k`` -> ``LOCALCRAG_TOP_K``: the name before the groups, still read."""
    return ENV_PREFIX + name.upper()


def nested_env(group: str, name: str) -> str:
    """(``retrieval``, ``top_k``) -> ``LOCALCRAG_RETRIEVAL__TOP_K``."""
    return ENV_PREFIX + group.upper() + NESTED + name.upper()


def env_value(group: str, name: str) -> tuple[str, str] | None:
    """(variable, value) that sets this setting in the environment (the grouped name first:
    it wins), or None. An empty variable counts as unset."""
    for var in (nested_env(group, name), flat_env(name)):
        if os.environ.get(var, "").strip():
            return var, os.environ[var]
    return None


def group_env(group: str) -> tuple[str, str] | None:
    """(``LOCALCRAG_<GROUP>``, its value): a whole group as one JSON table, if set."""
    var = ENV_PREFIX + group.upper()
    return (var, os.environ[var]) if os.environ.get(var, "").strip() else None


def nest(cls: type[BaseModel], raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` with each flat setting name moved into its group's table. A grouped value
    beats a flat one for the same setting; names that are neither stay where they are."""
    groups, index = groups_of(cls), flat_index(cls)
    out: dict[str, Any] = {}
    flat: dict[str, dict[str, Any]] = {}
    for key, value in raw.items():
        if key in groups and isinstance(value, Mapping):
            out[key] = dict(value)
        elif key in index:
            flat.setdefault(index[key], {})[key] = value
        else:
            out[key] = value
    for group, values in flat.items():
        table = out.get(group)
        out[group] = {**values, **table} if isinstance(table, dict) else values
    return out


def check_names(cls: type[BaseModel], data: Mapping[str, Any]) -> None:
    """A misspelt setting ("topk") or one in the wrong table is an error naming the right
    one; a name that matches nothing (e.g. from another version) is ignored."""
    groups, index = groups_of(cls), flat_index(cls)
    top = [*groups, *index]
    for key, value in data.items():
        if key not in groups:
            close = difflib.get_close_matches(key, top, n=1, cutoff=0.8)
            if close:
                raise ValueError(f"unknown setting {key!r} (did you mean {close[0]!r}?)")
            continue
        if not isinstance(value, Mapping):
            continue
        names = list(groups[key].model_fields)
        for name in value:
            if name in names:
                continue
            if index.get(name):
                raise ValueError(f"{key}.{name}: {name} belongs in [{index[name]}], not [{key}]")
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
            if close:
                raise ValueError(
                    f"unknown setting '{key}.{name}' (did you mean '{key}.{close[0]}'?)"
                )


# Variables with the prefix that are not settings: read elsewhere (settings/paths.py, errors.py)
OTHER_VARIABLES = frozenset(
    {"LOCALCRAG_HOME", "LOCALCRAG_DEBUG", "LOCALCRAG_MODELS_DIR", "LOCALCRAG_LIBRARY"}
)


def env_names(cls: type[BaseModel]) -> set[str]:
    """Every variable name with the prefix that localcrag reads."""
    names = set(OTHER_VARIABLES)
    for group, kind in groups_of(cls).items():
        names.add(ENV_PREFIX + group.upper())
        for name in kind.model_fields:
            names.update((flat_env(name), nested_env(group, name)))
    names.update(flat_env(name) for name in OBSOLETE)
    return names


def check_env(cls: type[BaseModel], environ: Mapping[str, str] | None = None) -> None:
    """A ``LOCALCRAG_`` variable that names no setting is one error naming the nearest real
    one (``LOCALCRAG_WEB__OFLINE``: the user meant offline and would not get it); an
    empty one counts as unset, as for the settings."""
    environ = os.environ if environ is None else environ
    known = env_names(cls)
    for var, value in environ.items():
        if not var.upper().startswith(ENV_PREFIX) or var.upper() in known or not value.strip():
            continue
        tails = {n[len(ENV_PREFIX) :]: n for n in known}
        close = difflib.get_close_matches(var.upper()[len(ENV_PREFIX) :], list(tails), n=1)
        nearest = (
            f"did you mean {tails[close[0]]}?" if close else "no setting has a name close to it"
        )
        raise LocalcragError(
            f"unknown environment variable {var} ({nearest})",
            "fix or unset it; `localcrag config` lists every setting",
        )


# Settings and values an older version wrote that this one no longer has: a file that still
# names them loads (one warning line), and the next save drops them.
OBSOLETE: dict[str, str] = {
    "scorer": "the query-likelihood grader it served was removed on 2026-12-01",
}
REMOVED_VALUES: dict[str, dict[str, str]] = {
    "grader": dict.fromkeys(
        ("cross", "align", "likelihood"),
        "removed on 2026-12-01 (fusion and reader measure better; docs/evaluator.md)",
    ),
}
_warned: set[tuple[str, tuple[str, ...]]] = set()


def drop_obsolete(
    cls: type[BaseModel], data: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """``data`` (grouped) without the settings and values this version no longer has (so
    their defaults apply), and one note per thing dropped."""
    out = {k: dict(v) if isinstance(v, Mapping) else v for k, v in data.items()}
    notes = []
    tables = [out, *(v for v in out.values() if isinstance(v, dict))]
    for key, why in OBSOLETE.items():
        if any(t.pop(key, None) is not None for t in tables):
            notes.append(f"{key!r} is no longer a setting ({why}): ignored")
    index = flat_index(cls)
    for key, gone in REMOVED_VALUES.items():
        table = out.get(index[key])
        value = table.get(key) if isinstance(table, dict) else None
        if isinstance(value, str) and value in gone and isinstance(table, dict):
            del table[key]
            notes.append(f"{key} = {value!r} was {gone[value]}: the default is used")
    return out, notes


def warn_obsolete(path: object, notes: list[str]) -> None:
    """One warning line (once per process per file and notes) through logging: with no
    handler configured Python prints it on stderr, the app's trace shows it otherwise."""
    key = (str(path), tuple(notes))
    if notes and key not in _warned:
        _warned.add(key)
        logging.getLogger("localcrag.settings").warning(
            "localcrag: %s: %s (delete the line, or save the settings once)", path, "; ".join(notes)
        )


def read_file(cls: type[BaseModel], path: Path) -> dict[str, Any]:
    """config.toml as grouped values: flat keys mapped into their groups, misspelt names
    refused, obsolete ones dropped with one warning. A bad file is a one-line error."""
    try:
        data = nest(cls, tomllib.loads(path.read_text(encoding="utf-8")))
        check_names(cls, data)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError, OSError) as exc:
        raise bad_file(path, exc) from None
    except RecursionError:  # tables or lists nested past Python's stack
        raise bad_file(path, ValueError("nested too deeply to read")) from None
    data, notes = drop_obsolete(cls, data)
    warn_obsolete(path, notes)
    return data


def bad_file(path: Path, exc: Exception) -> LocalcragError:
    return LocalcragError(
        f"{path}: invalid settings: {one_line(exc)}",
        "fix or delete the file to return to defaults",
    )


class ConfigFile(TomlConfigSettingsSource):
    """The TOML settings file, read with ``read_file`` (flat keys, misspellings, obsolete
    names); a missing file is no values."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        self._model = settings_cls  # the base class sets settings_cls after reading the file
        if path.exists() and not path.is_file():  # pydantic-settings skips it without a word
            raise LocalcragError(
                f"{path} is not a file (a folder?): the settings cannot be read",
                "move it away or delete it to return to defaults",
            )
        super().__init__(settings_cls, toml_file=path)

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        return read_file(self._model, Path(file_path))


class FlatEnv(PydanticBaseSettingsSource):
    """``LOCALCRAG_<FIELD>`` (``LOCALCRAG_TOP_K=8``), the names from before the groups, for
    every setting: placed after pydantic-settings' own source for the grouped names, so
    ``LOCALCRAG_RETRIEVAL__TOP_K`` wins when both are set. A dict setting reads as JSON or
    as an inline TOML table; everything else goes to pydantic as the string it is."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ reads every group at once

    def __call__(self) -> dict[str, Any]:
        out: dict[str, dict[str, Any]] = {}
        for group, kind in groups_of(self.settings_cls).items():
            for name, info in kind.model_fields.items():
                raw = os.environ.get(flat_env(name), "").strip()
                if raw:
                    out.setdefault(group, {})[name] = decode(raw, info.annotation)
        return out


def decode(raw: str, annotation: Any) -> Any:
    """A variable's text as the value pydantic validates."""
    if "dict" not in str(annotation):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return read_value(raw)


def one_line(exc: Exception) -> str:
    """pydantic's multi-line report as `name = value: reason; ...` (no URLs, no types)."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            name = ".".join(str(x) for x in err.get("loc", ()))
            value = err.get("input")
            if not name:
                parts.append(msg)
            elif isinstance(value, Mapping):  # a check across a group's fields
                parts.append(f"{name}: {msg}")
            else:
                parts.append(f"{name} = {value!r}: {msg}")
        return "; ".join(parts)
    lines = str(exc).splitlines()
    return " ".join(lines[:3]) if lines else type(exc).__name__


def load_error(cls: type[BaseModel], exc: ValidationError, path: Path) -> LocalcragError:
    """One line for settings that do not validate, naming where the bad value came from:
    the variable(s) that set it, else the file."""
    groups = groups_of(cls)
    env: list[str] = []
    for err in exc.errors():
        loc = [str(x) for x in err.get("loc", ())]
        if not loc or loc[0] not in groups:
            continue
        names = loc[1:2] or list(groups[loc[0]].model_fields)  # a check across the group
        found = [group_env(loc[0]), *(env_value(loc[0], n) for n in names)]
        env += [f"{var}={value!r}" for var, value in filter(None, found)]
    if env:
        return LocalcragError(
            f"invalid settings from the environment ({', '.join(dict.fromkeys(env))}): "
            f"{one_line(exc)}",
            "fix or unset the variable",
        )
    return bad_file(path, exc)
