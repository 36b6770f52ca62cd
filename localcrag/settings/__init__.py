"""Typed settings in groups by meaning, stored as TOML in the user config dir.

``LOCALCRAG_HOME`` roots config, index, caches and history, so tests and scripts never touch a
user's real files. Every setting has a description: the TUI settings screen and
``localcrag config`` show them, group by group in the model's order (``fields()``).

- ``groups``: one model per group (models, endpoint, evaluator, retrieval, web, generation,
  indexing, storage, scans, limits); ``model``: ``Settings`` and how it loads and saves;
- ``sources``: the environment and the file (flat names from before the groups included);
- ``thresholds``: the decision thresholds' one source, the shipped grader fit;
- ``paths``, ``files``, ``values``: where things live, private files, one value as TOML.
"""

from localcrag.registry import GRADERS, GraderSpec
from localcrag.settings.model import (
    SettingField,
    Settings,
    describe,
    field,
    fields,
    grouped,
)
from localcrag.settings.paths import (
    APP,
    REPO_MODELS,
    backup_path,
    config_path,
    data_dir,
    default_models_dir,
    home,
)
from localcrag.settings.thresholds import LOWER_THRESHOLD, STRIP_THRESHOLD, UPPER_THRESHOLD

__all__ = [
    "APP",
    "GRADERS",
    "LOWER_THRESHOLD",
    "REPO_MODELS",
    "STRIP_THRESHOLD",
    "UPPER_THRESHOLD",
    "GraderSpec",
    "SettingField",
    "Settings",
    "backup_path",
    "config_path",
    "data_dir",
    "default_models_dir",
    "describe",
    "field",
    "fields",
    "grouped",
    "home",
]
