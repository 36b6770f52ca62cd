"""The libraries there are (settings/paths.py says where each lives): what ``localcrag
libraries`` lists and the app's switcher offers."""

from __future__ import annotations

from pathlib import Path

from localcrag.ingest import sidecar


def listing() -> list[dict]:
    """Every library: its name, whether it is the one in use, its folder and how many
    documents its index lists (read from the document list beside it: no model loads)."""
    from localcrag.settings.paths import (
        DEFAULT_LIBRARY,
        libraries_dir,
        library_dir,
        library_name,
    )

    names = [DEFAULT_LIBRARY]
    if libraries_dir().is_dir():
        names += sorted(p.name for p in libraries_dir().iterdir() if p.is_dir())
    current = library_name() or DEFAULT_LIBRARY
    return [
        {
            "name": n,
            "current": n == current,
            "dir": str(library_dir(n)),
            "documents": _documents(library_dir(n) / "index"),
        }
        for n in names
    ]


def _documents(index: Path) -> int:
    found: set[str] = set()
    for path in Path(index).glob("*.documents.json"):
        body, _ = sidecar.read(path)
        if isinstance(body, dict):
            found.update(body)
    return len(found)
