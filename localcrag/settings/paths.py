"""Where localcrag keeps things: ``LOCALCRAG_HOME`` roots config, index, caches and history,
so tests and scripts never touch a user's real files; without it, the platform's user dirs.

A named library (``LOCALCRAG_LIBRARY``, or ``localcrag --library NAME``) has an index,
a history and a settings file of its own under ``<data dir>/libraries/NAME/``; the default
library is the data dir itself, as it always was. Models and caches are shared."""

from __future__ import annotations

import os
import re
from pathlib import Path

from localcrag.errors import LocalcragError

APP = "localcrag"
REPO_MODELS = Path(__file__).resolve().parents[2] / "models"


def home() -> Path | None:
    """The LOCALCRAG_HOME override, if set."""
    value = os.environ.get("LOCALCRAG_HOME")
    return Path(value).expanduser().resolve() if value else None


def data_dir() -> Path:
    if (h := home()) is not None:
        return h
    import platformdirs

    return Path(platformdirs.user_data_dir(APP))


LIBRARY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
DEFAULT_LIBRARY = "default"


def library_name() -> str | None:
    """The named library chosen (``LOCALCRAG_LIBRARY``); None: the default one."""
    value = os.environ.get("LOCALCRAG_LIBRARY", "").strip()
    return None if value in ("", DEFAULT_LIBRARY) else value


def libraries_dir() -> Path:
    return data_dir() / "libraries"


def library_dir(name: str | None = None) -> Path:
    """Where a library keeps its index, history and settings (the data dir: the default)."""
    name = name if name is not None else library_name()
    if name is None or name == DEFAULT_LIBRARY:
        return data_dir()
    if not LIBRARY_NAME.fullmatch(name) or name in (".", ".."):
        raise LocalcragError(
            f"{name!r} is not a library name",
            "use letters, digits, '.', '_' and '-' (at most 64), starting with a letter or digit",
        )
    return libraries_dir() / name


def config_path() -> Path:
    """The settings file: a named library's own beside its index, else the default's."""
    if library_name() is not None:
        return library_dir() / "config.toml"
    return default_config_path()


def default_config_path() -> Path:
    """The default library's settings file: ``$LOCALCRAG_HOME/config.toml``, else in the
    user config dir."""
    if (h := home()) is not None:
        return h / "config.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP)) / "config.toml"


def backup_path(path: Path) -> Path:
    """Where ``Settings.save`` keeps the previous settings file."""
    return path.with_name(path.name + ".bak")


def default_models_dir() -> Path:
    """The repo's models/ folder (where `make` provisions), else one under the data dir.
    (``LOCALCRAG_MODELS_DIR`` is read here too, so defaults built without ``Settings.load``
    and the tools that provision before any settings exist agree.)"""
    env = os.environ.get("LOCALCRAG_MODELS_DIR")
    if env:
        return Path(env).expanduser().resolve()
    if REPO_MODELS.is_dir():
        return REPO_MODELS
    return data_dir() / "models"
