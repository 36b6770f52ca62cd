"""A repair in progress: the marker that keeps every other command off a half-repaired index.

A repair may drop the table, restore an old version or re-index for minutes; killed in the
middle, it leaves an index that looks merely smaller ("No documents indexed yet"), and an
ingest run next would write a document list of that smaller library, so the next repair
would think the loss was intended. ``doctor --repair`` therefore writes
``<index>/repair.pending.json`` first, holding every document it knows the library had
(source -> content hash), and deletes it only when it has finished. While it exists every
command that reads or writes the index refuses with one line, and the next repair starts
from the list it holds.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError
from localcrag.ingest import sidecar

NAME = "repair.pending.json"


class RepairInterrupted(LocalcragError):
    """A repair was started and has not finished: nothing is read or written until it has."""


def path(store: Any) -> Path | None:
    folder = store.location.folder
    return Path(folder) / NAME if folder is not None else None


def exists(store: Any) -> bool:
    where = path(store)
    return where is not None and (where.exists() or where.is_symlink())


def refuse(store: Any) -> None:
    """Raise RepairInterrupted while a repair's marker is there."""
    if exists(store):
        raise RepairInterrupted(
            f"the index in {store.path}: a repair was interrupted before it finished",
            "run `localcrag doctor --repair` to finish it",
        )


def start(store: Any, documents: Mapping[str, str]) -> dict[str, str]:
    """Write the marker (or add to one an interrupted repair left) with the documents the
    repair must bring back; returns all of them, the earlier repair's included."""
    where = path(store)
    if where is None:
        return dict(documents)
    body, _ = sidecar.read(where)
    before = body.get("documents") if isinstance(body, dict) else None
    merged = {**(before if isinstance(before, dict) else {}), **documents}
    where.parent.mkdir(parents=True, exist_ok=True)
    sidecar.write(where, {"documents": merged, "started": time.time()})
    return {str(k): str(v) for k, v in merged.items()}


def finish(store: Any) -> None:
    where = path(store)
    if where is not None:
        where.unlink(missing_ok=True)
