"""Typed settings, stored as TOML in the user config dir.

``LOCALCRAG_HOME`` roots config, index, caches and history, so tests and scripts never
touch a user's real files. Every field has a description: the TUI settings screen and
``localcrag config`` show them.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from localcrag.errors import LocalcragError
from localcrag.registry import GRADERS, GraderSpec  # noqa: F401 - re-exported: the one grader registry
from localcrag.settings_endpoint import EndpointSettings
from localcrag.settings_io import (
    check_index_uri,
    check_names,
    check_storage_options,
    drop_obsolete,
    env_name,
    env_overrides,
    one_line,
    warn_obsolete,
    write_private,
)
from localcrag.settings_limits import LimitSettings, OcrSettings

APP = "localcrag"
# The CRAG decision thresholds on the fusion grader's calibrated scale (docs/evaluator.md):
# the one source of the defaults, for the settings and for anything drawn before they load.
UPPER_THRESHOLD = 0.76
LOWER_THRESHOLD = 0.51
REPO_MODELS = Path(__file__).resolve().parent.parent / "models"


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
    if (h := home()) is not None:
        return h / "config.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP)) / "config.toml"


def default_models_dir() -> Path:
    """The repo's models/ folder (where `make` provisions), else one under the data dir."""
    env = os.environ.get("LOCALCRAG_MODELS_DIR")
    if env:
        return Path(env).expanduser().resolve()
    if REPO_MODELS.is_dir():
        return REPO_MODELS
    return data_dir() / "models"


if TYPE_CHECKING:  # (pydantic's mypy plugin writes this name into subclasses' signatures)
    GraderName = str
else:  # the registry's names, checked by pydantic: a new grader is one registry entry
    GraderName = Literal[tuple(GRADERS)]


class Settings(LimitSettings, OcrSettings, EndpointSettings):
    """Everything a user can change. Defaults are the embedded ones `make run` starts with."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    models_dir: Path = Field(
        default_factory=default_models_dir,
        description="Folder holding GGUF files and sentence-transformers folders.",
    )
    embedder: str = Field(
        "all-MiniLM-L6-v2",
        description="Sentence-transformers folder in models/ used to embed chunks and questions.",
    )
    embedder_backend: Literal["auto", "onnx", "torch"] = Field(
        "auto",
        description=(
            "How the embedder runs: 'onnx' = the int8 ONNX copy that provisioning exports "
            "beside the folder (~2.7x faster, no torch import); 'torch' = "
            "sentence-transformers in float32; 'auto' = onnx when that copy exists. "
            "Each backend has its own index table (run `localcrag reindex` after a change)."
        ),
    )
    generator: str = Field(
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        description="Chat GGUF in models/ that writes answers and web queries (needs a chat template).",
    )
    grader: GraderName = Field(
        next(iter(GRADERS)),
        description="Retrieval evaluator: "
        + "; ".join(f"{k} = {v.description}" for k, v in GRADERS.items())
        + ".",
    )
    grader_model: str | None = Field(
        None,
        description=(
            "ONNX file for the 'reader' grader (with its fitted calibration in the same name + "
            ".json, as scripts/fit_reader.py writes), or params file (.json, as "
            "scripts/fit_withheld.py writes) for the 'fusion' grader; default: the one shipped "
            "in the package."
        ),
    )
    grader_llm: str | None = Field(
        None,
        description="GGUF used by the 'llm' yes/no grader; defaults to the generator.",
    )
    upper_threshold: float = Field(
        UPPER_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="A chunk scoring at or above this makes the action Correct.",
    )
    lower_threshold: float = Field(
        LOWER_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="When every chunk scores below this the action is Incorrect.",
    )
    strip_threshold: float = Field(
        0.46,
        ge=0.0,
        le=1.0,
        description="Knowledge refinement keeps strips scoring at or above this.",
    )
    calibrate: bool = Field(
        False,
        description=(
            "Carry the three thresholds over to your library: grade probe questions made from "
            "its own chunks (and from an unrelated text) once per index version and map the "
            "scores onto the scale the thresholds were fitted on (docs/evaluator.md)."
        ),
    )
    top_k: int = Field(5, ge=1, le=50, description="Chunks retrieved per question.")
    retrieval_mode: Literal["hybrid", "vector", "text"] = Field(
        "hybrid", description="Vector, full-text, or both fused with reciprocal-rank fusion."
    )
    chunk_tokens: int = Field(
        200,
        ge=32,
        le=512,
        description="Largest chunk in embedder tokens (capped at the embedder's maximum).",
    )
    chunk_overlap: int = Field(
        1, ge=0, le=5, description="Sentences repeated between neighbouring chunks."
    )
    strip_sentences: int = Field(
        2,
        ge=1,
        le=5,
        description="Sentences per strip in knowledge refinement and per window the grader scores "
        "(not part of the index: no re-indexing).",
    )
    evidence_tokens: int = Field(
        900,
        ge=100,
        le=8000,
        description="Token budget for refined evidence in the answer prompt.",
    )
    n_ctx: int = Field(
        2048, ge=256, le=131072, description="Context window given to the generator."
    )
    max_answer_tokens: int = Field(
        256, ge=16, le=4096, description="Longest answer the generator may write."
    )
    answer_style: Literal["auto", "extractive", "generative"] = Field(
        "auto",
        description=(
            "How answers are written: 'extractive' quotes the evidence sentences that "
            "answer (cited, answer in bold); 'generative' lets the generator write, and "
            "shows only sentences the evidence supports; 'auto' = extractive for models "
            "under ~1B parameters (the bundled one), generative for larger ones. "
            "Env LOCALCRAG_ANSWER_STYLE overrides it."
        ),
    )
    temperature: float = Field(
        0.0, ge=0.0, le=2.0, description="Sampling temperature; 0 is deterministic."
    )
    repeat_penalty: float = Field(
        1.15,
        ge=1.0,
        le=2.0,
        description="Penalty on repeated tokens; small models loop without it (1.0 = off).",
    )
    threads: int = Field(
        0,
        ge=0,
        le=256,
        description=(
            "CPU threads for the models; 0 = auto: all cores, and for each answer only "
            "the cores other programs leave free (measured while the question is "
            "prepared; with one busy program on 2 cores this keeps answers ~2.5x faster)."
        ),
    )
    web_search: Literal["ask", "always", "never"] = Field(
        "ask",
        description="Web fallback on Incorrect/Ambiguous: ask before each query, always, or never.",
    )
    offline: bool = Field(
        False, description="Guarantee no network access at all (web search is skipped)."
    )
    web_timeout: float = Field(
        5.0, gt=0.0, le=5.0, description="Seconds a web search may take (at most 5)."
    )
    web_results: int = Field(4, ge=1, le=10, description="Web results kept per search.")
    web_region: str = Field("wt-wt", description="DuckDuckGo region code.")
    index_keep_minutes: float = Field(
        60.0,
        ge=0.0,
        le=7 * 24 * 60,
        description=(
            "Minutes of old index versions kept after an ingest compacts the index: "
            "what `localcrag doctor --repair` can go back to after a crash or a lost "
            "file (0 keeps only the newest version)."
        ),
    )
    index_uri: str | None = Field(
        None,
        description=(
            "Where the index lives: not set = the local data dir; 's3://bucket/prefix' = one index shared "
            "by a team on S3 or an S3-compatible store (credentials from the environment, e.g. "
            "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; see docs/shared-index.md)."
        ),
    )
    index_storage_options: dict[str, str | bool | int] | None = Field(
        None,
        description=(
            'Object-store options for index_uri, e.g. {endpoint = "http://minio:9000", region = '
            '"us-east-1", allow_http = true}; credentials are refused here: use the environment.'
        ),
    )
    index_refresh_seconds: float = Field(
        5.0,
        ge=0.0,
        le=3600.0,
        description=(
            "A shared index (index_uri) is checked for other machines' writes at most this often "
            "(0 = before every read)."
        ),
    )
    _index_uri_ok = field_validator("index_uri")(check_index_uri)
    _storage_options_ok = field_validator("index_storage_options")(check_storage_options)

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> Settings:
        if self.lower_threshold > self.upper_threshold:
            raise ValueError(
                f"lower_threshold ({self.lower_threshold}) must not exceed "
                f"upper_threshold ({self.upper_threshold})"
            )
        return self

    # --- persistence -------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read the TOML file (missing file: defaults). A bad file is a one-line error."""
        path = path or config_path()
        settings = cls()
        if path.exists():
            try:
                raw, notes = drop_obsolete(tomllib.loads(path.read_text(encoding="utf-8")))
                check_names(raw, cls.model_fields)
                settings = cls(**raw)
            except (
                tomllib.TOMLDecodeError,
                ValidationError,
                UnicodeDecodeError,
                ValueError,
            ) as exc:
                raise LocalcragError(
                    f"{path}: invalid settings: {one_line(exc)}",
                    "fix or delete the file to return to defaults",
                ) from exc
            warn_obsolete(path, notes)
        if env := env_overrides(cls.model_fields):  # LOCALCRAG_<FIELD> beats the file
            try:
                settings = cls(**{**settings.model_dump(), **env})
            except ValidationError as exc:
                names = ", ".join(f"{env_name(k)}={os.environ[env_name(k)]!r}" for k in env)
                raise LocalcragError(
                    f"invalid settings from the environment ({names}): {one_line(exc)}",
                    "fix or unset the variable",
                ) from None
        return settings

    def save(self, path: Path | None = None, keys: Iterable[str] | None = None) -> Path:
        """Write ``keys`` (default: every setting) into the file, keeping every other line's
        setting as it is and the previous file as ``<name>.bak``. A file that is not valid
        TOML is never overwritten: that is a one-line error naming the file."""
        import shutil

        import tomli_w

        path = path or config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        data: dict = {}
        if path.exists():
            try:
                data, _ = drop_obsolete(tomllib.loads(path.read_text(encoding="utf-8")))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
                raise LocalcragError(
                    f"{path}: not saved: the file cannot be read ({one_line(exc)})",
                    "fix it by hand (or delete it), then save again",
                ) from exc
            shutil.copy2(path, backup_path(path))
        values = self.model_dump(mode="json")
        for key in Settings.model_fields if keys is None else keys:
            if values[key] is None:
                data.pop(key, None)
            else:
                data[key] = values[key]
        write_private(path, tomli_w.dumps(data))  # 0600: it may name buckets and servers
        return path

    # --- derived paths -----------------------------------------------------------------

    @property
    def index_dir(self) -> Path:
        return data_dir() / "index"

    @property
    def demo_index_dir(self) -> Path:
        """The demo documents' own index: never mixed with the user's (``index_dir``)."""
        return data_dir() / "demo-index"

    @property
    def history_dir(self) -> Path:
        return data_dir() / "history"

    @property
    def cache_dir(self) -> Path:
        return data_dir() / "cache"

    def model_path(self, name: str) -> Path:
        p = Path(name).expanduser()
        return p if p.is_absolute() else self.models_dir / name


def backup_path(path: Path) -> Path:
    """Where ``save`` keeps the previous settings file."""
    return path.with_name(path.name + ".bak")


def describe() -> list[tuple[str, str, object]]:
    """(name, description, default) for every setting: for help screens and docs."""
    out = []
    for name, info in Settings.model_fields.items():
        default = info.default_factory() if info.default_factory else info.default
        out.append((name, info.description or "", default))
    return out
