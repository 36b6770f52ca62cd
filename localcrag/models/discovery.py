"""Finding models in models/: any GGUF file or sentence-transformers folder a user drops in.

Nothing here downloads: huggingface libraries are switched offline before they load.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from localcrag.errors import ModelMissing

PROVISION_HINT = "run `make models` (or `python -m localcrag.provision`) to provision models/"
_ST_MARKERS = ("modules.json", "config_sentence_transformers.json", "sentence_bert_config.json")


def hf_offline() -> None:
    """Make every huggingface library refuse the network (must run before they import)."""
    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ.setdefault(key, "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TQDM_DISABLE", "1")


@dataclass(frozen=True)
class ModelInfo:
    name: str
    path: Path
    kind: str  # "gguf" or "sentence-transformers"
    size_mb: float


def is_st_folder(path: Path) -> bool:
    return path.is_dir() and any((path / m).exists() for m in _ST_MARKERS)


def is_gguf(path: Path) -> bool:
    """True for a real GGUF file (checks the magic, so a renamed text file is refused)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"GGUF"
    except OSError:
        return False


def discover(models_dir: Path) -> list[ModelInfo]:
    """Every usable model in ``models_dir``, sorted by kind then name."""
    found: list[ModelInfo] = []
    if not models_dir.is_dir():
        return found
    for entry in sorted(models_dir.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.suffix == ".gguf" and entry.is_file():
            found.append(ModelInfo(entry.name, entry, "gguf", entry.stat().st_size / 1e6))
        elif is_st_folder(entry):
            size = sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
            found.append(ModelInfo(entry.name, entry, "sentence-transformers", size / 1e6))
    return sorted(found, key=lambda m: (m.kind, m.name))


def _hint(path: Path, kind: str) -> str:
    """The fix: pick a model that is there, or provision the bundled ones."""
    try:
        names = [m.name for m in discover(path.parent) if m.kind == kind]
    except OSError:
        names = []
    if not names:
        return PROVISION_HINT
    return (
        f"choose one of {', '.join(names)} in the settings (see `localcrag models`), or "
        + PROVISION_HINT
    )


def require_gguf(path: Path) -> Path:
    """Check a GGUF path before llama.cpp sees it, so the error names the file and the fix."""
    if not path.exists():
        raise ModelMissing(f"model file not found: {path}", _hint(path, "gguf"))
    if not is_gguf(path):
        raise ModelMissing(
            f"{path} is not a GGUF model file (corrupt or wrong format)",
            "replace it, or " + PROVISION_HINT,
        )
    return path


def require_st(path: Path) -> Path:
    if not is_st_folder(path):
        raise ModelMissing(
            f"sentence-transformers model folder not found or incomplete: {path}",
            _hint(path, "sentence-transformers"),
        )
    return path
