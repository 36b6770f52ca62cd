"""Section 14: exact identifiers win.

401 generated stock notes, alike but for their codes ("Item code DOC0123 ... supplier
reference SUP-40123 ... last counted on 2024-05-03"), one file each, are ingested with the
product's embedder; 200 questions that name one note's code, supplier reference or count
date are searched (hybrid, the default), and the note that holds the identifier must come
first. Before the identifier rank the full-text hit tied with an unrelated vector hit under RRF: 37 of
200 first. ``notes``/``questions`` are also the fixture of tests/unit/ingest/test_identifiers.py.
"""

from __future__ import annotations

import datetime as dt
import random
import tempfile
from pathlib import Path

from bench import Row, Section, log, temp_home

BEFORE = 37  # this section at bf14a1f (before the identifier rank): 37 of 200 first
_THINGS = [
    "brass valve",
    "steel bracket",
    "rubber gasket",
    "copper fitting",
    "nylon bushing",
    "aluminium hinge",
    "oak panel",
    "glass lens",
]


def note(i: int) -> tuple[str, str, str, str]:
    """(text, code, supplier reference, count date) of note ``i``."""
    code, ref = f"DOC{i:04d}", f"SUP-{40000 + 7 * i}"
    date = (dt.date(2024, 1, 1) + dt.timedelta(days=i)).isoformat()
    text = (
        f"Stock note. Item code {code} is a {_THINGS[i % len(_THINGS)]} kept in warehouse "
        f"{1 + i % 4}, aisle {1 + i % 12}, shelf {1 + i % 6}. It was last counted on {date}, "
        f"with {10 + i % 90} units on hand. Supplier reference {ref}; reorder when fewer than "
        f"{5 + i % 10} remain.\n"
    )
    return text, code, ref, date


def notes(folder: Path, n: int = 401) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"note{i:04d}.txt").write_text(note(i)[0], encoding="utf-8")
    return folder


def questions(n: int = 200, of: int = 401, seed: int = 0) -> list[tuple[str, str]]:
    """(question, file name of the note that holds its identifier)."""
    rng = random.Random(seed)
    out = []
    for k, i in enumerate(rng.sample(range(of), n)):
        _, code, ref, date = note(i)
        q = [
            f"Where is item code {code} kept?",
            f"How many units of {code} are on hand?",
            f"Which item has supplier reference {ref}?",
            f"Which item was last counted on {date}?",
        ][k % 4]
        out.append((q, f"note{i:04d}.txt"))
    return out


def run(quick: bool) -> Section:
    from localcrag.crag.retrieve import Retriever
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    sec = Section("14. Exact identifiers")
    asked = questions(200)
    with tempfile.TemporaryDirectory(prefix="lcbench-ids-") as d, temp_home("lcbench-ids-"):
        folder = notes(Path(d) / "notes")
        settings = Settings.load()
        lib = Library(settings)
        log("identifiers: ingesting 401 notes")
        lib.ingest([folder])
        retriever = Retriever(settings, lib)
        first = {
            mode: sum(
                bool(h) and Path(h[0].chunk.source).name == name
                for q, name in asked
                for h in [retriever.search(q, mode=mode)]
            )
            for mode in ("hybrid", "vector", "text")
        }
    sec.tables.append(
        (
            "401 similar notes, 200 questions naming a code, supplier reference or date "
            f"({settings.models.embedder})",
            [Row(mode, {"holding note first": f"{n} of 200"}) for mode, n in first.items()],
        )
    )
    hybrid = first["hybrid"]
    sec.targets.append(
        (
            "identifier queries: the holding note first in ≥ 195 of 200 (hybrid)",
            f"{hybrid} of 200 (before: {BEFORE})",
            hybrid >= 195,
        )
    )
    sec.data.update(
        {
            "first": first,
            "questions": len(asked),
            "notes": 401,
            "target_names": ["identifier-holding-passage-first"],
        }
    )
    return sec
