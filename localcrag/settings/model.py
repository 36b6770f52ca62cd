"""``Settings``: everything a user can change, in groups, on pydantic-settings.

``Settings()`` is the defaults (plus what is passed); ``Settings.load()`` reads, highest
first: what is passed > the environment (``LOCALCRAG_<GROUP>__<FIELD>``, then the flat
``LOCALCRAG_<FIELD>``) > config.toml (grouped tables, or the flat keys older versions wrote)
> the defaults. The order of the group fields below is the order ``localcrag config`` and the
TUI settings screen show; each group's title is its ``Field`` title.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from localcrag.errors import LocalcragError
from localcrag.settings.files import write_private
from localcrag.settings.groups import (
    EndpointSettings,
    EvaluatorSettings,
    GenerationSettings,
    IndexingSettings,
    LimitSettings,
    ModelSettings,
    OcrSettings,
    RetrievalSettings,
    StorageSettings,
    WebSettings,
)
from localcrag.settings.paths import backup_path, config_path, data_dir, library_dir, library_name
from localcrag.settings.sources import (
    ENV_PREFIX,
    NESTED,
    ConfigFile,
    FlatEnv,
    check_env,
    drop_obsolete,
    groups_of,
    load_error,
    nest,
    one_line,
)

_LOADING: ContextVar[Path | None] = ContextVar("localcrag_settings_file", default=None)


def _group(kind: type[BaseModel], title: str, description: str) -> Any:
    """A group field: its defaults, and the heading it shows under (``title``)."""
    return Field(default_factory=kind, title=title, description=description)


class Settings(BaseSettings):
    """Everything a user can change. Defaults are the embedded ones `make run` starts with."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=NESTED,
        env_ignore_empty=True,
        extra="ignore",
        validate_assignment=True,
    )

    models: ModelSettings = _group(
        ModelSettings, "Models", "Which local models generate, embed and grade."
    )
    endpoint: EndpointSettings = _group(
        EndpointSettings,
        "Model server (instead of the local generator)",
        "An OpenAI-compatible server that writes instead of the local generator.",
    )
    evaluator: EvaluatorSettings = _group(
        EvaluatorSettings,
        "Retrieval evaluator",
        "The grader and the thresholds of the CRAG decision.",
    )
    retrieval: RetrievalSettings = _group(
        RetrievalSettings, "Retrieval", "How many chunks are fetched per question, and how."
    )
    web: WebSettings = _group(
        WebSettings, "Web search and privacy", "The web fallback and the offline guarantee."
    )
    generation: GenerationSettings = _group(
        GenerationSettings, "Generation", "How answers are written."
    )
    indexing: IndexingSettings = _group(
        IndexingSettings,
        "Indexing (changing these re-indexes into a new table)",
        "How documents are cut into chunks.",
    )
    storage: StorageSettings = _group(
        StorageSettings,
        "Index location and versions",
        "Where the index lives and how long old versions are kept.",
    )
    scans: OcrSettings = _group(
        OcrSettings, "OCR (scanned pages and images)", "How scanned pages and images are read."
    )
    limits: LimitSettings = _group(
        LimitSettings,
        "Limits per file (hostile or broken inputs)",
        "Bounds on one file, so one file never exhausts memory or time.",
    )

    def __init__(self, **values: Any) -> None:
        # flat names (``top_k=8``) and group tables alike, as in config.toml
        super().__init__(**nest(type(self), values))

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = _LOADING.get()
        if path is None:  # Settings(): the defaults and what is passed, nothing read
            return (init_settings,)
        return (init_settings, env_settings, FlatEnv(settings_cls), ConfigFile(settings_cls, path))

    # --- persistence -------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """The settings from the environment and the TOML file (missing file: defaults).
        A bad file or variable is a one-line error naming it."""
        path = path or config_path()
        check_env(cls)
        if (name := library_name()) is not None and not library_dir().is_dir():
            raise LocalcragError(
                f"there is no library named {name!r}",
                f"`localcrag libraries` lists them; `localcrag libraries create {name}` makes it",
            )
        token = _LOADING.set(path)
        try:
            return cls()
        except ValidationError as exc:
            raise load_error(cls, exc, path) from None
        except SettingsError as exc:  # a variable pydantic-settings cannot decode (JSON)
            raise LocalcragError(
                f"invalid settings from the environment: {one_line(exc)}",
                "fix or unset the variable; a whole group or a table setting takes JSON",
            ) from None
        finally:
            _LOADING.reset(token)

    def save(self, path: Path | None = None, keys: Iterable[str] | None = None) -> Path:
        """Write ``keys`` (setting names; default: every setting) into the file, each in its
        group's table, keeping every other setting in the file as it is (flat ones from an
        older version moved into their tables) and the previous file as ``<name>.bak``. A
        file that is not valid TOML is never overwritten: that is a one-line error."""
        import shutil

        import tomli_w

        path = path or config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        data: dict[str, Any] = {}
        if path.exists():
            try:
                raw = tomllib.loads(path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
                raise LocalcragError(
                    f"{path}: not saved: the file cannot be read ({one_line(exc)})",
                    "fix it by hand (or delete it), then save again",
                ) from exc
            data, _ = drop_obsolete(type(self), nest(type(self), raw))
            shutil.copy2(path, backup_path(path))
        chosen = fields() if keys is None else [field(k) for k in keys]
        dumped = self.model_dump(mode="json")
        for f in chosen:
            value = dumped[f.group][f.name]
            table = data.setdefault(f.group, {})
            if value is None:
                table.pop(f.name, None)
            else:
                table[f.name] = value
        groups = groups_of(type(self))
        data = {
            **{k: v for k, v in data.items() if k not in groups},
            **{g: data[g] for g in groups if data.get(g)},  # the tables in the model's order
        }
        write_private(path, tomli_w.dumps(data))  # 0600: it may name buckets and servers
        return path

    def merged(self, values: Mapping[str, Any]) -> Settings:
        """A validated copy with ``values`` (setting names, or group tables) changed."""
        current = self.model_dump()
        for group, table in nest(type(self), values).items():
            if isinstance(table, Mapping) and isinstance(current.get(group), dict):
                current[group] = {**current[group], **table}
            else:
                current[group] = table
        return type(self)(**current)

    # --- derived paths -----------------------------------------------------------------

    @property
    def index_dir(self) -> Path:
        return library_dir() / "index"

    @property
    def demo_index_dir(self) -> Path:
        """The demo documents' own index: never mixed with the user's (``index_dir``)."""
        return data_dir() / "demo-index"

    @property
    def history_dir(self) -> Path:
        return library_dir() / "history"

    @property
    def cache_dir(self) -> Path:
        return data_dir() / "cache"

    def model_path(self, name: str) -> Path:
        p = Path(name).expanduser()
        return p if p.is_absolute() else self.models.models_dir / name


@dataclass(frozen=True)
class SettingField:
    """One setting as the front ends list it: its group, name, title and pydantic field."""

    group: str
    name: str
    title: str  # the group's title
    info: FieldInfo

    @property
    def path(self) -> str:
        """``retrieval.top_k``: the TOML table and key."""
        return f"{self.group}.{self.name}"

    def get(self, settings: BaseModel) -> Any:
        return getattr(getattr(settings, self.group), self.name)

    def default(self) -> Any:
        return self.info.get_default(call_default_factory=True)


@lru_cache(maxsize=1)
def fields() -> tuple[SettingField, ...]:
    """Every setting, group by group, in the model's declared order."""
    return tuple(
        SettingField(group, name, Settings.model_fields[group].title or group, info)
        for group, kind in groups_of(Settings).items()
        for name, info in kind.model_fields.items()
    )


def field(name: str) -> SettingField:
    """A setting by its name (``top_k``) or path (``retrieval.top_k``)."""
    for f in fields():
        if name in (f.name, f.path):
            return f
    raise KeyError(f"no setting named {name!r}")


def grouped() -> Iterator[tuple[str, list[SettingField]]]:
    """(title, its settings) per group, in the declared order."""
    by_title: dict[str, list[SettingField]] = {}
    for f in fields():
        by_title.setdefault(f.title, []).append(f)
    yield from by_title.items()


def describe() -> list[tuple[str, str, object]]:
    """(path, description, default) for every setting: for help screens and docs."""
    return [(f.path, f.info.description or "", f.default()) for f in fields()]
