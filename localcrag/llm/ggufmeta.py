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
_SCALAR = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_STRING, _ARRAY = 8, 9


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
        """ "135M", "1.5B": the parameter count as people write it."""
        n = self.n_params
        return f"{n / 1e9:.1f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"


_U64 = struct.Struct("<Q")
_BLOCK = 1 << 22


class _Reader:
    """Sequential reads over a 4 MB window: a vocabulary is ~150k-260k tiny strings, and one
    file call each would make listing a model take a second."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh, self.buf, self.pos = fh, b"", 0

    def _need(self, n: int) -> None:
        if self.pos + n > len(self.buf):
            self.buf = self.buf[self.pos :] + self.fh.read(max(n, _BLOCK))
            self.pos = 0
            if len(self.buf) < n:
                raise GGUFError("header cut short (truncated file)")

    def take(self, n: int) -> bytes:
        self._need(n)
        self.pos += n
        return self.buf[self.pos - n : self.pos]

    def skip(self, n: int) -> None:
        left = len(self.buf) - self.pos
        if n <= left:
            self.pos += n
        else:
            self.fh.seek(n - left, 1)
            self.buf, self.pos = b"", 0

    def unpack(self, fmt: str) -> Any:
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        n = self.unpack("Q")
        if n > 1 << 26:
            raise GGUFError(f"implausible string length {n}")
        return self.take(n).decode("utf-8", errors="replace")

    def skip_strings(self, count: int) -> None:
        unpack_from = _U64.unpack_from
        for _ in range(count):
            if self.pos + 8 > len(self.buf):
                self._need(8)
            n = unpack_from(self.buf, self.pos)[0] + 8
            if self.pos + n > len(self.buf):
                self._need(n)
            self.pos += n

    def value(self, vtype: int) -> Any:
        if vtype in _SCALAR:
            return self.unpack(_SCALAR[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:  # vocabularies and merges: skipped, never kept
            item_type, count = self.unpack("I"), self.unpack("Q")
            if item_type in _SCALAR:
                self.skip(struct.calcsize(_SCALAR[item_type]) * count)
            elif item_type == _STRING:
                self.skip_strings(count)
            else:
                for _ in range(count):
                    self.value(item_type)
            return None
        raise GGUFError(f"unknown value type {vtype}")


def read_meta(path: Path) -> GGUFMeta:
    """The header of one GGUF file; ``GGUFError`` for anything that is not one."""
    path = Path(path)
    with open(path, "rb", buffering=0) as fh:
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
            r.skip_strings(1)
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
