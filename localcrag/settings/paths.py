"""Where localcrag keeps things: ``LOCALCRAG_HOME`` roots config, index, caches and history,
so tests and scripts never touch a user's real files; without it, the platform's user dirs."""

from __future__ import annotations

import os
from pathlib import Path

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


def config_path() -> Path:
    """The settings file: ``$LOCALCRAG_HOME/config.toml``, else in the user config dir."""
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
