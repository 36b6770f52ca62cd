"""What is in models/, described from each file's own header: one list for the CLI and the app.

Reading GGUF headers (``ggufmeta``) costs milliseconds per file and loads no weights, so
`localcrag models` and the Models screen stay instant however big the files are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from localcrag.llm.catalogue import CATALOGUE, CatalogueEntry, by_filename
from localcrag.llm.ggufmeta import GGUFError, GGUFMeta, read_meta
from localcrag.models.discovery import discover
from localcrag.settings import Settings


@dataclass(frozen=True)
class ModelRow:
    name: str
    path: Path
    kind: str  # "gguf" | "sentence-transformers"
    size_bytes: int
    meta: GGUFMeta | None  # None for folders, and for a GGUF whose header cannot be read
    roles: tuple[str, ...]  # settings that name it: "generator", "embedder", "grader_llm"
    error: str = ""
    catalogue: CatalogueEntry | None = None

    @property
    def params(self) -> str:
        return self.meta.params_label if self.meta else "-"

    @property
    def context(self) -> str:
        return str(self.meta.context_length) if self.meta and self.meta.context_length else "-"

    @property
    def chat(self) -> str:
        if self.meta is None:
            return "-"
        return "yes" if self.meta.has_chat_template else "no"


def _roles(settings: Settings, name: str, path: Path) -> tuple[str, ...]:
    m = settings.models
    roles = (("generator", m.generator), ("embedder", m.embedder), ("grader_llm", m.grader_llm))
    return tuple(
        role
        for role, value in roles
        if value and (value == name or Path(str(value)).expanduser() == path)
    )


def model_rows(settings: Settings) -> list[ModelRow]:
    """Every model in ``settings.models.models_dir`` with size, parameters, context, chat template and
    the settings that use it."""
    rows = []
    for m in discover(settings.models.models_dir):
        meta, error = None, ""
        size = int(m.size_mb * 1e6)
        if m.kind == "gguf":
            try:
                meta = read_meta(m.path)
                size = meta.size_bytes
            except (GGUFError, OSError) as exc:
                error = str(exc)
        rows.append(
            ModelRow(
                m.name,
                m.path,
                m.kind,
                size,
                meta,
                _roles(settings, m.name, m.path),
                error,
                by_filename(m.name),
            )
        )
    return rows


def catalogue_rows(models_dir: Path) -> list[tuple[CatalogueEntry, bool]]:
    """The catalogue, each entry with whether its file is already in models/."""
    return [(e, (models_dir / e.filename).is_file()) for e in CATALOGUE]


def human_size(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"
