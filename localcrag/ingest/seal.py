"""The seal: what every file of a local table looked like when its writer let go.

Lance never rewrites a file in place (data files, manifests, transactions, deletion files
and index files are written once), so a file whose size or content differs from what the
writer recorded was damaged afterwards: a disk error, a bad copy, a stray write. Without
this record most such damage is silent: a zeroed manifest opens as an empty table, a
deleted newest manifest opens the version before, a transaction file is never read, and
random bytes in a data file's pages read back as other text or other vectors.

``<table>.seal.json`` (a checksummed sidecar) lists each file's size, mtime and blake2b
hash and the table version. Every process checks it when it opens the table: one ``stat``
per file, a hash only when a file's mtime moved (a copied index is re-hashed, not
condemned). ``doctor`` hashes every file. Files written since the seal (another writer's
new version) are not judged; the writer seals again when it lets go of the lock.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localcrag.ingest import sidecar

MUTABLE = {"_versions/latest_version_hint.json"}  # the one file Lance rewrites (only a hint)
_U64 = 2**64 - 1


@dataclass
class Findings:
    state: str | None = None  # None: the seal read back; else sidecar.MISSING / DAMAGED
    changed: list[str] = field(default_factory=list)  # files whose bytes differ from the seal
    missing: list[str] = field(default_factory=list)  # sealed files no longer on disk
    lost_version: int | None = None  # the sealed version when its manifest is gone

    @property
    def damaged(self) -> bool:
        return bool(self.changed or self.lost_version is not None)

    def describe(self) -> str:
        if self.lost_version is not None:
            return f"the newest table version ({self.lost_version}) is missing from _versions/"
        return f"{len(self.changed)} file(s) changed after they were written: {', '.join(map(label, self.changed[:3]))}"


def label(rel: str) -> str:
    """A file of the table as the user reads it: a manifest names its version."""
    v = version_of(rel) if rel.startswith("_versions/") and rel.endswith(".manifest") else None
    return f"the manifest of version {v} ({rel})" if v is not None else rel


def path(store: Any) -> Path | None:
    folder = store.location.folder
    return Path(folder) / f"{store.name}.seal.json" if folder is not None else None


def _table_dir(store: Any) -> Path:
    return Path(store.location.folder) / f"{store.name}.lance"


def _files(root: Path) -> dict[str, Path]:
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and rel not in MUTABLE:
            out[rel] = p
    return out


def _hash(p: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with p.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def version_of(manifest: str) -> int | None:
    """The table version a ``_versions/<n>.manifest`` name stands for (both naming schemes)."""
    try:
        n = int(Path(manifest).stem)
    except ValueError:
        return None
    return _U64 - n if n > 2**63 else n


def write(store: Any, version: int) -> None:
    """Record every file of the table (hashing only files not recorded before); best effort."""
    where = path(store)
    if where is None:
        return
    old, _ = sidecar.read(where)
    old = old.get("files", {}) if isinstance(old, dict) else {}
    files = {}
    try:
        for rel, p in _files(_table_dir(store)).items():
            st = p.stat()
            prev = old.get(rel)
            same = (
                isinstance(prev, list)
                and len(prev) == 3
                and prev[:2] == [st.st_size, st.st_mtime_ns]
            )
            files[rel] = prev if same else [st.st_size, st.st_mtime_ns, _hash(p)]
        sidecar.write(where, {"version": int(version), "files": files, "at": time.time()})
    except OSError:  # a read-only or full disk: the next writer seals
        pass


def check(store: Any, full: bool = False) -> Findings:
    """Compare the table's files with the seal: by size and mtime, hashing a file whose mtime
    moved (``full``: hash every file)."""
    body, state = sidecar.read(path(store))
    out = Findings(state=state)
    if not isinstance(body, dict) or not isinstance(body.get("files"), dict):
        out.state = out.state or sidecar.DAMAGED
        return out
    root = _table_dir(store)
    for rel, rec in sorted(body["files"].items()):
        p = root / rel
        try:
            st = p.stat()
        except FileNotFoundError:
            out.missing.append(rel)
            continue
        except OSError:
            out.changed.append(rel)
            continue
        if not isinstance(rec, list) or len(rec) != 3:
            out.state = sidecar.DAMAGED
            continue
        if st.st_size != rec[0] or ((full or st.st_mtime_ns != rec[1]) and _hash(p) != rec[2]):
            out.changed.append(rel)
    sealed = body.get("version")
    on_disk = [version_of(p.name) for p in (root / "_versions").glob("*.manifest")]
    newest = max((v for v in on_disk if v is not None), default=-1)
    if (
        isinstance(sealed, int)
        and newest < sealed
        and any(r.startswith("_versions/") for r in out.missing)
    ):
        out.lost_version = sealed
    return out


def verify(store: Any) -> None:
    """Raise IndexDamaged naming the damage when the table's files differ from the seal."""
    from localcrag.ingest.faults import damaged

    if store.location.folder is None:  # object storage: no seal (docs/shared-index.md)
        return
    found = check(store)
    derived = [c for c in found.changed if c.startswith("_indices/")]  # the full-text index
    unread = [
        c for c in found.changed if c.startswith("_transactions/")
    ]  # read by concurrent commits only
    if found.lost_version is not None or len(derived) + len(unread) < len(found.changed):
        raise damaged(store.path, found.describe())
    store.fts_damaged = bool(derived)  # rebuilt from the table on the first text search
    store.derived_changed = derived  # the source index's own are rebuilt as the table opens


def quarantine(store: Any, rels: list[str]) -> Path | None:
    """Move damaged files out of the table (kept, for inspection) into
    ``<index>/quarantine/<table>-<time>/``; returns that folder."""
    if not rels:
        return None
    dest = (
        Path(store.location.folder)
        / "quarantine"
        / f"{store.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    root = _table_dir(store)
    for rel in rels:
        src = root / rel
        if src.exists():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(src), str(dest / rel))
    return dest
