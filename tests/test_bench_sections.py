"""`make bench` is not run by the suite (it takes most of an hour); this checks that every
section it lists imports and has a ``run(quick)``, so a broken merge fails here, not there."""

from __future__ import annotations

import importlib
import inspect


def test_every_listed_bench_section_imports_and_runs_with_quick() -> None:
    main = importlib.import_module("bench.__main__")
    assert len(set(main.SECTIONS)) == len(main.SECTIONS)
    for name in main.SECTIONS:
        run = importlib.import_module(f"bench.{name}").run
        assert list(inspect.signature(run).parameters) == ["quick"], name
