"""Scopes: which indexed files a question may search (``ask --in``, the app's "ask about
these").

A pattern is what a person types for a place: a file's path, a folder (every file under
it), a glob (``*.pdf``, ``reports/2019*``: against the whole path when it names a folder,
else against file names) or a bare file name. Paths are read from the working folder,
as a shell would. A pattern that matches no indexed file is an error that says so, never
a silent search of everything or of nothing.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from localcrag.errors import LocalcragError
from localcrag.ingest.files import source_key

GLOB = frozenset("*?[")


class BadScope(LocalcragError):
    """A scope pattern that matches no indexed document."""


def matching(pattern: str, indexed: Sequence[str]) -> list[str]:
    """The indexed sources one pattern names (see the module), in index order."""
    raw = os.path.expanduser(pattern.strip())
    if not raw:
        return []
    if not GLOB & set(raw):
        # as typed and with links followed (ingest stores the latter; a link may be typed)
        targets = {source_key(Path(os.path.abspath(raw))), source_key(Path(raw).resolve())}
        unders = tuple(t.rstrip(os.sep) + os.sep for t in targets)
        found = [s for s in indexed if s in targets or s.startswith(unders)]
        if found or os.sep in raw:
            return found
        named = [s for s in indexed if os.path.basename(s) == raw]  # a bare file name
        return named or [s for s in indexed if os.path.basename(s).lower() == raw.lower()]
    if os.sep in raw:  # a glob over paths: made absolute as the shell would
        whole = os.path.normpath(os.path.join(os.getcwd(), raw))
        return [s for s in indexed if fnmatch.fnmatchcase(s, whole)]
    return [s for s in indexed if fnmatch.fnmatch(os.path.basename(s), raw)]


def resolve(patterns: Iterable[str], indexed: Sequence[str]) -> tuple[str, ...]:
    """The sources all ``patterns`` name together; a pattern that names none is a
    ``BadScope`` naming it (one typo must not widen or empty the search)."""
    out: dict[str, None] = {}
    for p in patterns:
        found = matching(p, indexed)
        if not found:
            raise BadScope(
                f"--in {p!r} matches none of the {len(indexed)} indexed documents",
                "give an indexed file's path or name, a folder, or a glob like '*.pdf'; "
                "`localcrag sources` lists them",
            )
        out.update(dict.fromkeys(found))
    return tuple(out)
