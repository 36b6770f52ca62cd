"""Typed settings, stored as TOML in the user config dir.

``LOCALCRAG_HOME`` roots config, index, caches and history, so tests and scripts never
touch a user's real files. Every field has a description: the TUI settings screen and
``localcrag config`` show them.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from localcrag.errors import LocalcragError

APP = "localcrag"
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


@dataclass(frozen=True)
class GraderSpec:
    """One retrieval evaluator: where its factory lives and what it does.

    ``factory`` is ``"module:function"``, imported only when that grader is built, because
    settings sit below the CRAG layer and must not import it. The function takes a
    ``localcrag.crag.graders.factories.GraderContext`` and returns a ``Grader``.
    """

    factory: str
    description: str


_F = "localcrag.crag.graders.factories:"
# The one registry of graders: the `grader` setting's choices, its help text and
# `make_grader` all come from here. The first entry is the default.
GRADERS: dict[str, GraderSpec] = {
    "fusion": GraderSpec(_F + "fusion", "calibrated fusion of cosine margin, key-term coverage, names "
                         "and numbers (default)"),
    "cross": GraderSpec(_F + "cross", "a fine-tuned MiniLM cross-encoder reads question and passage "
                        "together (experimental, weaker than fusion so far; falls back to fusion, visibly)"),
    "align": GraderSpec(_F + "align", "logistic head over frozen MiniLM token alignments (question words "
                        "matched in the passage, answer shape) plus the fusion signals; falls back to fusion, visibly"),
    "embedding": GraderSpec(_F + "embedding", "calibrated best-strip cosine margin"),
    "lexical": GraderSpec(_F + "lexical", "calibrated IDF-weighted word coverage (no model)"),
    "likelihood": GraderSpec(_F + "likelihood", "query likelihood under the `scorer` GGUF (slow)"),
    "llm": GraderSpec(_F + "llm", "yes/no prompt to `grader_llm` (slow; at chance with the bundled models)"),
}
GraderName = Literal[tuple(GRADERS)]  # type: ignore[valid-type]


class Settings(BaseModel):
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
        description=("How the embedder runs: 'onnx' = the int8 ONNX copy that provisioning exports "
                     "beside the folder (~2.7x faster, no torch import); 'torch' = "
                     "sentence-transformers in float32; 'auto' = onnx when that copy exists. "
                     "Each backend has its own index table (run `localcrag reindex` after a change)."),
    )
    generator: str = Field(
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        description="Chat GGUF in models/ that writes answers and web queries (needs a chat template).",
    )
    scorer: str = Field(
        "gemma-3-270m-q4_k_m.gguf",
        description="GGUF in models/ for query-likelihood scoring (a base model is fine).",
    )
    grader: GraderName = Field(
        next(iter(GRADERS)),
        description="Retrieval evaluator: " + "; ".join(f"{k} = {v.description}" for k, v in GRADERS.items()) + ".",
    )
    grader_model: str | None = Field(
        None,
        description=("ONNX file for the 'cross' grader (with its fitted calibration in the same name + "
                     ".json), or head file (.json) for the 'align' grader; default: the one shipped in "
                     "the package."),
    )
    grader_llm: str | None = Field(
        None,
        description="GGUF used by the 'llm' yes/no grader; defaults to the generator.",
    )
    upper_threshold: float = Field(
        0.76, ge=0.0, le=1.0,
        description="A chunk scoring at or above this makes the action Correct.",
    )
    lower_threshold: float = Field(
        0.51, ge=0.0, le=1.0,
        description="When every chunk scores below this the action is Incorrect.",
    )
    strip_threshold: float = Field(
        0.46, ge=0.0, le=1.0,
        description="Knowledge refinement keeps strips scoring at or above this.",
    )
    top_k: int = Field(5, ge=1, le=50, description="Chunks retrieved per question.")
    retrieval_mode: Literal["hybrid", "vector", "text"] = Field(
        "hybrid", description="Vector, full-text, or both fused with reciprocal-rank fusion."
    )
    chunk_tokens: int = Field(
        200, ge=32, le=512,
        description="Largest chunk in embedder tokens (capped at the embedder's maximum).",
    )
    chunk_overlap: int = Field(
        1, ge=0, le=5, description="Sentences repeated between neighbouring chunks."
    )
    strip_sentences: int = Field(
        2, ge=1, le=5, description="Sentences per strip in knowledge refinement."
    )
    evidence_tokens: int = Field(
        900, ge=100, le=8000,
        description="Token budget for refined evidence in the answer prompt.",
    )
    n_ctx: int = Field(
        2048, ge=256, le=131072, description="Context window given to the generator."
    )
    max_answer_tokens: int = Field(
        256, ge=16, le=4096, description="Longest answer the generator may write."
    )
    temperature: float = Field(
        0.0, ge=0.0, le=2.0, description="Sampling temperature; 0 is deterministic."
    )
    repeat_penalty: float = Field(
        1.15, ge=1.0, le=2.0,
        description="Penalty on repeated tokens; small models loop without it (1.0 = off).",
    )
    threads: int = Field(
        0, ge=0, le=256,
        description=("CPU threads for the models; 0 = auto: all cores, and for each answer only "
                     "the cores other programs leave free (measured while the question is "
                     "prepared; with one busy program on 2 cores this keeps answers ~2.5x faster)."),
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

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> "Settings":
        if self.lower_threshold > self.upper_threshold:
            raise ValueError(f"lower_threshold ({self.lower_threshold}) must not exceed "
                             f"upper_threshold ({self.upper_threshold})")
        return self

    # --- persistence -------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | None = None) -> "Settings":
        """Read the TOML file (missing file: defaults). A bad file is a one-line error."""
        path = path or config_path()
        if not path.exists():
            return cls()
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
            _check_names(raw)
            return cls(**raw)
        except (tomllib.TOMLDecodeError, ValidationError, UnicodeDecodeError, ValueError) as exc:
            raise LocalcragError(f"{path}: invalid settings: {_one_line(exc)}",
                                 "fix or delete the file to return to defaults") from exc

    def save(self, path: Path | None = None) -> Path:
        import tomli_w

        path = path or config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.model_dump(mode="json", exclude_none=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
        return path

    # --- derived paths -----------------------------------------------------------------

    @property
    def index_dir(self) -> Path:
        return data_dir() / "index"

    @property
    def history_dir(self) -> Path:
        return data_dir() / "history"

    @property
    def cache_dir(self) -> Path:
        return data_dir() / "cache"

    def model_path(self, name: str) -> Path:
        p = Path(name).expanduser()
        return p if p.is_absolute() else self.models_dir / name


def describe() -> list[tuple[str, str, object]]:
    """(name, description, default) for every setting: for help screens and docs."""
    out = []
    for name, info in Settings.model_fields.items():
        default = info.default_factory() if info.default_factory else info.default
        out.append((name, info.description or "", default))
    return out


def _check_names(raw: dict) -> None:
    """A misspelt setting ("topk") is an error naming the right one; a name that matches
    nothing (e.g. from another version) is ignored."""
    import difflib

    known = list(Settings.model_fields)
    for key in raw:
        if key not in Settings.model_fields:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
            if close:
                raise ValueError(f"unknown setting {key!r} (did you mean {close[0]!r}?)")


def _one_line(exc: Exception) -> str:
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

