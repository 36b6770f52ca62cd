"""Which code each bench section measures, and a hash of it.

A figure is the figure of the code it was measured on. ``python -m bench`` records, per
section, the files that section exercises (``SECTION_CODE``: package folders and modules,
plus the section's own bench modules) and a SHA-256 of their code in BENCHMARKS.json (a
Python file's syntax tree without comments and docstrings, so a reworded comment or a moved
test path keeps the figures current; any other file's bytes);
``python -m bench --check`` names the sections whose code changed since, and README's
generated performance rows say "code changed since" for them (scripts/readme_tables.py),
so a landing that changes measured code either re-runs those sections or shows it.

The map is coarse on purpose: a section is marked when anything it could depend on
changed (a false "changed" costs a re-run; a missed one would show a stale figure as
current). Sections that run the whole pipeline list the whole package.
"""

from __future__ import annotations

import ast
import hashlib
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_PKG = "localcrag"
_CORE = ("localcrag/types.py", "localcrag/settings", "localcrag/textutil", "localcrag/errors.py")
_INGEST = (*_CORE, "localcrag/ingest", "localcrag/llm", "localcrag/models")
# retrieval and what it imports from the answer package (the asked term of "what does X mean")
_RETRIEVE = ("localcrag/crag/retrieve.py", "localcrag/crag/answer/glossary.py")
_CRAG = (*_INGEST, "localcrag/crag", "localcrag/data", "localcrag/events.py", "localcrag/record.py")

# section -> the code it measures (besides bench/__init__.py, bench/fixtures.py and its own
# bench/<section>.py, which every entry gets)
SECTION_CODE: dict[str, tuple[str, ...]] = {
    "ingest": (*_INGEST, "bench/batch_sizes.py", "bench/baseline.py"),
    "retrieval": (*_INGEST, *_RETRIEVE, "bench/quality.py", "bench/baseline.py"),
    "grading": (*_CRAG,),
    "e2e": (_PKG,),
    "memory": (_PKG,),
    "answers": (*_CRAG,),
    "index": (*_INGEST,),
    "shared": (*_INGEST,),
    "hostile": (*_INGEST, "bench/hostile_reads.py"),
    "watch": (*_INGEST, "localcrag/cli"),
    "endpoint": (*_CRAG, "bench/endpoint_probe.py"),
    "ocr": (*_INGEST, "bench/ocr_pages.py"),
    "scale": (
        *_INGEST,
        *_RETRIEVE,
        "bench/scale_corpus.py",
        "bench/scale_designs.py",
        "bench/scale_files.py",
        "bench/scale_probe.py",
        "bench/scope_probe.py",
    ),
    "identifiers": (*_INGEST, *_RETRIEVE),
    "mixed": (_PKG,),
}
SECTIONS = tuple(SECTION_CODE)  # the report's order: section N is SECTIONS[N - 1]


def paths(section: str) -> tuple[str, ...]:
    """The files and folders (relative to the repo) a section's figures depend on."""
    own = ("bench/__init__.py", "bench/fixtures.py", f"bench/{section}.py")
    return tuple(sorted(set(SECTION_CODE[section]) | set(own)))


def _files(rels: tuple[str, ...]) -> list[Path]:
    """The files under ``rels`` that git tracks (so a stray file in a checkout changes no
    hash), or every file but bytecode outside a git checkout (an unpacked source tree)."""
    r = subprocess.run(
        ["git", "ls-files", "-z", "--", *rels], cwd=ROOT, capture_output=True, check=False
    )
    if r.returncode == 0 and r.stdout:
        return sorted(ROOT / f for f in r.stdout.decode().split("\0") if f and (ROOT / f).is_file())
    out: set[Path] = set()
    for rel in rels:
        p = ROOT / rel
        found = [p] if p.is_file() else p.rglob("*")
        out |= {f for f in found if f.is_file() and "__pycache__" not in f.parts}
    return sorted(f for f in out if f.suffix not in (".pyc", ".pyo"))


_DEFINES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def code_of(source: bytes, name: str = "") -> bytes:
    """What runs in a file: a Python module's syntax tree without its docstrings (comments
    never reach the tree, nor do line numbers), or the bytes of anything else."""
    if not name.endswith(".py"):
        return source
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    for node in ast.walk(tree):
        if isinstance(node, _DEFINES) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


def code_hash(section: str) -> str:
    """SHA-256 over the section's files (path and code, in path order)."""
    h = hashlib.sha256()
    for f in _files(paths(section)):
        h.update(f.relative_to(ROOT).as_posix().encode() + b"\0")
        h.update(code_of(f.read_bytes(), f.name))
        h.update(b"\0")
    return h.hexdigest()


def section_name(entry: dict[str, Any]) -> str | None:
    """The section a BENCHMARKS.json entry is (its recorded name, else its number)."""
    if entry.get("name") in SECTION_CODE:
        return str(entry["name"])
    head = str(entry.get("title", "")).split(".", 1)[0]
    return SECTIONS[int(head) - 1] if head.isdigit() and 0 < int(head) <= len(SECTIONS) else None


def stale(data: dict[str, Any]) -> dict[str, str]:
    """Sections of a BENCHMARKS.json whose code is not the code measured, or whose last run
    failed: name -> why."""
    out: dict[str, str] = {}
    for entry in data.get("sections", []):
        name = section_name(entry)
        if name is None:
            continue
        recorded = (entry.get("code") or {}).get("sha256")
        if not recorded:
            out[name] = "no code hash recorded (measured before the bench recorded one)"
        elif recorded != code_hash(name):
            out[name] = "code changed since"
        elif any(str(n).startswith("failed:") for n in entry.get("notes") or []):
            out[name] = "failed in its last run"  # no figures: nothing current to show
    return out
