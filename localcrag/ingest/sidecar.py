"""Small JSON files beside the table, written atomically and carrying their own checksum.

The document list, the file-stat cache, the seal and the vector cache's manifest are plain
JSON; a truncated or bit-flipped one could still parse and say something false (a wrong
hash, a wrong version). So each is written as ``{"check": <blake2b of the body>, "body":
...}`` and read back only when the checksum matches. A file written before checksums (no
``check`` key) is read as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

MISSING, DAMAGED = "missing", "damaged"


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def write(path: Path, body: Any) -> None:
    """Write ``body`` with its checksum, atomically (a crash leaves the previous file)."""
    text = json.dumps(body, ensure_ascii=False, sort_keys=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"check": _digest(text), "body": text}, ensure_ascii=False), "utf-8")
    os.replace(tmp, path)


def read(path: Path | None) -> tuple[Any, str | None]:
    """(body, None); or (None, "missing" | "damaged") when there is no file or it fails its
    checksum or does not parse."""
    if path is None:
        return None, MISSING
    try:
        raw = path.read_text("utf-8")
    except FileNotFoundError:
        return None, MISSING
    except (OSError, UnicodeDecodeError):
        return None, DAMAGED
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and set(data) == {"check", "body"}:
            if not isinstance(data["body"], str) or _digest(data["body"]) != data["check"]:
                return None, DAMAGED
            return json.loads(data["body"]), None
        return data, None  # written before checksums
    except ValueError:
        return None, DAMAGED
