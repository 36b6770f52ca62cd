"""The small catalogue of chat GGUFs `localcrag models pull NAME` knows by short name.

Instruct models that run on a laptop CPU, one quantisation each (Q4_K_M: the usual
size/quality balance for llama.cpp). Sizes and RAM are approximate and were written from
the model cards, not checked against the hub from this machine: the pull itself reads the
real size and checksum from the hub before downloading. RAM = the file (weights are mapped)
+ the KV cache at the default n_ctx of 2048 + ~0.2 GB of buffers.
Anything else on the hub is pulled as ``REPO/FILE.gguf``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from localcrag.errors import LocalcragError


@dataclass(frozen=True)
class CatalogueEntry:
    name: str  # short name: `localcrag models pull NAME`, `--generator NAME`
    repo: str
    filename: str
    params: str
    context: int  # the model's own context length (n_ctx setting caps what is used)
    size_gb: float  # file size, approximate
    ram_gb: float  # RAM to run it at n_ctx 2048, approximate
    note: str

    @property
    def spec(self) -> str:
        return f"{self.repo}/{self.filename}"


CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "qwen2.5-0.5b",
        "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        "qwen2.5-0.5b-instruct-q4_k_m.gguf",
        "0.5B",
        32768,
        0.49,
        0.7,
        "smallest; still quotes by default (under 1B)",
    ),
    CatalogueEntry(
        "qwen2.5-1.5b",
        "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        "qwen2.5-1.5b-instruct-q4_k_m.gguf",
        "1.5B",
        32768,
        1.12,
        1.4,
        "good first upgrade: writes answers",
    ),
    CatalogueEntry(
        "qwen2.5-3b",
        "Qwen/Qwen2.5-3B-Instruct-GGUF",
        "qwen2.5-3b-instruct-q4_k_m.gguf",
        "3.1B",
        32768,
        2.10,
        2.4,
        "best of the list on a laptop; ~2x slower than 1.5B",
    ),
    CatalogueEntry(
        "llama3.2-1b",
        "bartowski/Llama-3.2-1B-Instruct-GGUF",
        "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
        "1.2B",
        131072,
        0.81,
        1.1,
        "Llama 3.2 community licence",
    ),
    CatalogueEntry(
        "llama3.2-3b",
        "bartowski/Llama-3.2-3B-Instruct-GGUF",
        "Llama-3.2-3B-Instruct-Q4_K_M.gguf",
        "3.2B",
        131072,
        2.02,
        2.5,
        "Llama 3.2 community licence",
    ),
    CatalogueEntry(
        "smollm2-1.7b",
        "bartowski/SmolLM2-1.7B-Instruct-GGUF",
        "SmolLM2-1.7B-Instruct-Q4_K_M.gguf",
        "1.7B",
        8192,
        1.06,
        1.7,
        "the bundled model's big sibling (Apache 2.0)",
    ),
)


def by_name(name: str) -> CatalogueEntry | None:
    key = name.strip().lower()
    return next((e for e in CATALOGUE if e.name == key), None)


def by_filename(filename: str) -> CatalogueEntry | None:
    return next((e for e in CATALOGUE if e.filename == filename), None)


def parse_spec(spec: str) -> tuple[str, str, CatalogueEntry | None]:
    """(repo, file, catalogue entry or None) for a short name or ``OWNER/REPO/FILE.gguf``."""
    entry = by_name(spec)
    if entry is not None:
        return entry.repo, entry.filename, entry
    parts = spec.strip().strip("/").split("/")
    if len(parts) >= 3 and parts[-1].lower().endswith(".gguf") and all(parts):
        repo, filename = "/".join(parts[:2]), "/".join(parts[2:])
        return repo, filename, by_filename(parts[-1])
    names = ", ".join(e.name for e in CATALOGUE)
    raise LocalcragError(
        f"unknown model {spec!r}",
        f"use a short name ({names}) or OWNER/REPO/FILE.gguf from the Hugging Face hub",
    )


def local_model(name: str, models_dir: Path) -> str:
    """The ``generator`` value for ``--generator NAME``: a GGUF in models/ (".gguf" may be left
    off) or the short name of a catalogue model already pulled there."""
    path = Path(name).expanduser()
    if path.is_absolute():
        if path.is_file():
            return str(path)
        raise LocalcragError(f"model file not found: {path}", "give a GGUF file that exists")
    for candidate in (name, name + ".gguf"):
        if (models_dir / candidate).is_file():
            return candidate
    entry = by_name(name)
    if entry is not None:
        if (models_dir / entry.filename).is_file():
            return entry.filename
        raise LocalcragError(
            f"{entry.name} is not pulled yet ({entry.filename} is not in {models_dir})",
            f"run `localcrag models pull {entry.name}` first",
        )
    raise LocalcragError(
        f"no model {name!r} in {models_dir}",
        "see `localcrag models` for the files there and the catalogue's short names",
    )
