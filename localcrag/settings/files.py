"""Private files: config, history and the index are the user's alone, whatever the umask."""

from __future__ import annotations

import os
from pathlib import Path

PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def private_umask() -> None:
    """Clear group and other bits for everything this process creates, LanceDB's index files
    included (its Rust code creates them with 0666 minus the umask): 0700 folders, 0600 files
    under any umask (000 included)."""
    os.umask(os.umask(0o077) | 0o077)


def private_dir(path: os.PathLike[str] | str) -> None:
    """Create a folder of localcrag's (the data home, history) as 0700; one that exists keeps its mode."""
    p = Path(path)
    if not p.is_dir():
        p.mkdir(parents=True, exist_ok=True)
        os.chmod(p, PRIVATE_DIR)


def write_private(path: os.PathLike[str] | str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then a rename) as 0600."""
    tmp = f"{os.fspath(path)}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    try:
        os.fchmod(fd, PRIVATE_FILE)  # explicitly: os.open's mode is reduced by the umask
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fd = -1
            fh.write(text)
    finally:
        if fd >= 0:
            os.close(fd)
    os.replace(tmp, path)


def private_files(home: os.PathLike[str] | str) -> None:
    """At the start of the CLI and the app: the umask above, and the data home made 0700."""
    private_umask()
    try:
        private_dir(home)
    except OSError:  # a read-only or missing parent: the command that writes there says so
        pass
