"""Dataset kinds: the one registry (:data:`ADAPTERS`) that recognises a dataset from its
path and loads it, and the options a kind cannot honour (one clear error each).

The question-set loaders live in :mod:`localcrag.eval.datasets`; labelled pairs in
:mod:`localcrag.eval.qapairs`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError
from localcrag.eval import qapairs
from localcrag.eval.datasets import (
    Dataset,
    dataset_key,
    load_ai_information,
    load_anthropic,
    load_generic,
    load_squad,
)

# --- qa-pairs: labelled (question, passage) pairs, no corpus to index -----------------------


def load_qapairs(path: Path) -> Dataset:
    """``../shared/data/qa-pairs`` (or its ``pairs.jsonl.gz``): only the evaluator part applies,
    each pair scored alone (:mod:`localcrag.eval.qapairs`); read when the run starts."""
    file = qapairs.pairs_file(path) or path

    def evaluate(
        pipe: Any, opts: Any, thresholds: Any, progress: Callable[[int, int, str], None]
    ) -> dict:
        po = qapairs.PairOptions(
            opts.limit or qapairs.PER_FAMILY, opts.seed, tuple(opts.sources), opts.exclude_trained
        )
        return qapairs.run_pairs(pipe, file, po, thresholds, progress)

    return Dataset(
        "qa-pairs",
        file,
        dataset_key("qa-pairs", file),
        [],
        lambda workdir: [],
        lambda chunk: (),
        parts=("evaluator",),
        evaluate=evaluate,
    )


# --- a fetched set: questions in the repository, documents fetched into a cache -------------


def _fetched(p: Path) -> Path | None:
    return (
        p
        if p.is_dir() and (p / "questions.jsonl").is_file() and (p / "fetch.json").is_file()
        else None
    )


def load_fetched(folder: Path) -> Dataset:
    """A folder with ``questions.jsonl`` and ``fetch.json`` ({"name", "docs", "fetch"}): the
    documents are public files a script fetches (``docs``, relative to the folder) because
    they may not be copied into the repository (tests/data/sheets: ``scripts/fetch_sheets.py``)."""
    try:
        spec = json.loads((folder / "fetch.json").read_text(encoding="utf-8"))
        docs = (folder / str(spec["docs"])).resolve()
        name, fetch = str(spec["name"]), str(spec["fetch"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise LocalcragError(
            f"{folder / 'fetch.json'}: not a fetch description ({exc})",
            'write {"name": ..., "docs": "relative/folder", "fetch": "command"}',
        ) from exc
    if not docs.is_dir() or not any(docs.iterdir()):
        raise LocalcragError(
            f"{folder}: its documents are not fetched yet ({docs})", f"run {fetch}"
        )
    return load_generic(folder, docs, name)


# --- recognition ------------------------------------------------------------------------------

EXPECTED = (
    "expected val.json (ai-information), a SQuAD 2.0 JSON (e.g. small.json), the "
    "anthropic-docs folder, a folder with questions.jsonl and docs/ (or fetch.json: "
    "tests/data/sheets), or the qa-pairs "
    "folder (pairs.jsonl.gz)"
)


def _json_of(p: Path) -> object:
    """A ``.json`` file's content (None for any other path); invalid JSON is one clear error."""
    if p.is_dir() or p.suffix.lower() != ".json":
        return None
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise LocalcragError(f"{p}: not valid JSON ({exc})", EXPECTED) from exc


def _is_squad(p: Path) -> Path | None:
    raw = _json_of(p)
    return p if isinstance(raw, dict) and isinstance(raw.get("data"), list) else None


def _is_ai_information(p: Path) -> Path | None:
    if p.is_dir():
        return p / "val.json" if (p / "val.json").is_file() else None
    raw = _json_of(p)
    return (
        p
        if isinstance(raw, list) and raw and isinstance(raw[0], dict) and "has_answer" in raw[0]
        else None
    )


def _has(*names: str) -> Callable[[Path], Path | None]:
    """A folder holding all of ``names`` (files, or folders when the name ends in '/')."""

    def recognise(p: Path) -> Path | None:
        ok = p.is_dir() and all(
            (p / n).is_dir() if n.endswith("/") else (p / n).is_file() for n in names
        )
        return p if ok else None

    return recognise


@dataclass(frozen=True)
class Adapter:
    """One dataset kind: ``recognise(path)`` gives the path to load (or None: not this kind)."""

    name: str
    recognise: Callable[[Path], Path | None]
    load: Callable[[Path], Dataset]


# The one registry of dataset kinds, tried in order (a folder with questions.jsonl and docs/
# is a generic set even if it also holds a val.json). Adding a kind is one entry.
ADAPTERS: tuple[Adapter, ...] = (
    Adapter(
        "anthropic-docs",
        _has("anthropic_docs.json", "docs_evaluation_dataset.json"),
        load_anthropic,
    ),
    Adapter("generic", _has("questions.jsonl", "docs/"), load_generic),
    Adapter("fetched", _fetched, load_fetched),
    Adapter("qa-pairs", qapairs.pairs_file, load_qapairs),
    Adapter("squad2", _is_squad, load_squad),
    Adapter("ai-information", _is_ai_information, load_ai_information),
)


def load_dataset(path: Path | str) -> Dataset:
    """Recognise the adapter from the path (:data:`ADAPTERS`); a one-line error names what is expected."""
    p = Path(path).expanduser()
    if not p.exists():
        raise LocalcragError(f"{p}: no such file or folder", EXPECTED)
    for adapter in ADAPTERS:
        if (found := adapter.recognise(p)) is not None:
            return adapter.load(found)
    raise LocalcragError(
        f"{p}: {'not a dataset folder' if p.is_dir() else 'unrecognised dataset'}", EXPECTED
    )


def check_options(ds: Dataset, opts: Any) -> None:
    """Options that the dataset cannot honour are one clear error, before any model loads."""
    if opts.only is not None and opts.only not in ds.parts:
        raise LocalcragError(
            f"--only {opts.only}: {ds.name} measures {', '.join(ds.parts)} only",
            f"use --only {ds.parts[0]} or leave --only out",
        )
    if (opts.sources or opts.exclude_trained) and ds.evaluate is None:
        raise LocalcragError(
            f"--sources / --exclude-trained apply to a labelled-pairs dataset, not {ds.name}",
            "give the qa-pairs folder (../shared/data/qa-pairs)",
        )
