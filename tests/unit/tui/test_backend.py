"""The app's view of the active index: every read the pipeline makes goes to the library that
is active at that moment (the demo's only while the user's is empty)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from localcrag.ingest.library import Searchable
from localcrag.settings import Settings
from localcrag.tui.backend import ActiveLibrary, Backend

MEMBERS = sorted(n for n in vars(Searchable) if not n.startswith("_"))


class Tagged:
    """Answers every Searchable read with its own name, so a test sees who answered."""

    def __init__(self, name: str, rows: int) -> None:
        self.name = name
        self.rows = rows
        self.store = f"{name}.store"
        self.embedder = f"{name}.embedder"

    def count(self) -> int:
        return self.rows

    def __getattr__(self, member: str) -> Any:  # the test double's own probe, not the code's
        if member in MEMBERS:
            return lambda *a, **k: (self.name, member, a)
        raise AttributeError(member)


def _backend(user_rows: int) -> Backend:
    s = Settings()  # LOCALCRAG_HOME is the test's own (conftest)
    user, demo = Tagged("user", user_rows), Tagged("demo", 3)
    return Backend(
        s,
        library_factory=lambda _s: user,
        demo_library_factory=lambda _s, _u: demo,
        pipeline_factory=lambda _s, lib: lib,
    )


def test_every_member_of_the_protocol_is_forwarded() -> None:
    assert MEMBERS, "Searchable declares no members"
    assert set(MEMBERS) <= set(vars(ActiveLibrary)), set(MEMBERS) - set(vars(ActiveLibrary))


@pytest.mark.parametrize(("user_rows", "active"), [(0, "demo"), (5, "user")])
def test_reads_go_to_the_active_library(user_rows: int, active: str) -> None:
    backend = _backend(user_rows)
    backend.choose_index()
    view = backend.pipeline()
    assert isinstance(view, ActiveLibrary)
    assert view.store == f"{active}.store" and view.embedder == f"{active}.embedder"
    assert view.count() == (3 if active == "demo" else 5)
    for member in MEMBERS:
        if member in ("store", "embedder", "count"):
            continue
        fn = getattr(view, member)
        args = ["x"] * sum(
            1
            for p in inspect.signature(fn).parameters.values()
            if p.default is inspect.Parameter.empty
        )
        assert fn(*args)[:2] == (active, member)


def test_the_view_follows_the_switch() -> None:
    backend = _backend(0)
    backend.choose_index()
    view = backend.pipeline()
    assert view.store == "demo.store"
    backend.library().rows = 2  # the user's first documents
    backend.choose_index()
    assert view.store == "user.store" and view.sources()[0] == "user"
