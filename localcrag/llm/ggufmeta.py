"""Read a GGUF file's header (metadata and tensor shapes) without loading its weights.

`localcrag models` and the Models screen list parameter count, context length and chat
template for files of several GB; llama.cpp would map every weight to answer that, and the
`gguf` package is not installed, so this reads the documented header layout directly
(https://github.com/ggml-org/ggml/blob/master/docs/gguf.md): magic, version, counts, the
key/value pairs, then one (name, dims, type, offset) record per tensor. Only the header is
read: a few MB at most (the tokenizer's vocabulary is the bulk of it).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

# GGUF value types -> struct format (strings and arrays handled apart)
_SCALAR = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
_KEEP_ARRAYS = False  # vocabularies are skipped, never kept in memory


class GGUFError(ValueError):
    """The file is not a GGUF file, or its header is cut short."""


@dataclass(frozen=True)
class GGUFMeta:
    """What the header says about a model."""

    path: Path
    architecture: str | None
    name: str | None
    size_label: str | None
    n_params: int
    context_length: int | None
    has_chat_template: bool
    file_type: int | None
    size_bytes: int

    @property
    def params_label(self) -> str:
        """"135M", "1.5B": the parameter count as people write it."""
        n = self.n_params
        return f"{n / 1e9:.1f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"


class _Reader:
    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh

    def take(self, n: int) -> bytes:
        data = self.fh.read(n)
        if len(data) != n:
            raise GGUFError("header cut short (truncated file)")
        return data

    def unpack(self, fmt: str) -> Any:
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        n = self.unpack("Q")
        if n > 1 << 26:
            raise GGUFError(f"implausible string length {n}")
        return self.take(n).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        n = self.unpack("Q")
        self.fh.seek(n, 1)

    def value(self, vtype: int, keep: bool = True) -> Any:
        if vtype in _SCALAR:
            return self.unpack(_SCALAR[vtype])
        if vtype == _STRING:
            return self.string() if keep else self.skip_string()
        if vtype == _ARRAY:
            item_type, count = self.unpack("I"), self.unpack("Q")
            if item_type in _SCALAR:  # fixed width: skip in one seek
                self.fh.seek(struct.calcsize(_SCALAR[item_type]) * count, 1)
                return None
            for _ in range(count):
                self.value(item_type, keep=False)
            return None
        raise GGUFError(f"unknown value type {vtype}")


def read_meta(path: Path) -> GGUFMeta:
    """The header of one GGUF file; ``GGUFError`` for anything that is not one."""
    path = Path(path)
    with open(path, "rb", buffering=1 << 20) as fh:
        r = _Reader(fh)
        if r.take(4) != b"GGUF":
            raise GGUFError(f"{path.name} is not a GGUF file")
        version = r.unpack("I")
        if version < 2:
            raise GGUFError(f"{path.name}: GGUF version {version} is too old")
        n_tensors, n_kv = r.unpack("Q"), r.unpack("Q")
        kv: dict[str, Any] = {}
        for _ in range(n_kv):
            key = r.string()
            kv[key] = r.value(r.unpack("I"))
        n_params = 0
        for _ in range(n_tensors):
            r.skip_string()
            dims = [r.unpack("Q") for _ in range(r.unpack("I"))]
            r.unpack("I")  # tensor type
            r.unpack("Q")  # data offset
            count = 1
            for d in dims:
                count *= d
            n_params += count
    arch = kv.get("general.architecture")
    ctx = kv.get(f"{arch}.context_length") if arch else None
    return GGUFMeta(
        path=path,
        architecture=arch,
        name=kv.get("general.name"),
        size_label=kv.get("general.size_label"),
        n_params=n_params,
        context_length=int(ctx) if ctx else None,
        has_chat_template=bool(kv.get("tokenizer.chat_template")),
        file_type=kv.get("general.file_type"),
        size_bytes=path.stat().st_size,
    )
