"""localcrag.history: conversations as JSON files, atomic, headless (no textual)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from localcrag.errors import LocalcragError
from localcrag.history import Conversation, History, Turn, title_for
from localcrag.types import Action, Answer, Citation, Evidence
from tests.support import REPO

PKG = REPO / "localcrag"


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> History:
    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path))
    clock = iter(range(1_700_000_000, 1_700_001_000, 10))
    return History(tmp_path / "history", clock=lambda: float(next(clock)))


def _turn(q: str = "What is AI?", a: str = "AI is machines thinking [1].") -> Turn:
    ev = (
        Evidence(
            1, "AI is the simulation of intelligence.", "/d/ai.pdf", 3, score=0.8, chunk_id="c1"
        ),
    )
    answer = Answer(q, a, (Citation(1, "/d/ai.pdf", 3, None),), Action.CORRECT)
    return Turn.from_answer(answer, ev, rewritten="What is artificial intelligence?")


def test_create_append_load_roundtrip(history: History) -> None:
    conv = history.create()
    conv = history.append(conv.id, _turn())
    loaded = history.load(conv.id)
    assert loaded.title == "What is AI?"
    t = loaded.turns[0]
    assert (t.question, t.answer, t.action, t.rewritten) == (
        "What is AI?",
        "AI is machines thinking [1].",
        "correct",
        "What is artificial intelligence?",
    )
    assert t.citations == [{"n": 1, "source": "/d/ai.pdf", "page": 3, "url": None, "locator": None}]
    assert t.chunk_id(1) == "c1"
    assert t.evidence_items()[0] == Evidence(
        1, "AI is the simulation of intelligence.", "/d/ai.pdf", 3, score=0.8, chunk_id="c1"
    )
    assert loaded.pairs() == [("What is AI?", "AI is machines thinking [1].")]


def test_a_file_written_before_chunk_ids_still_loads(history: History) -> None:
    """Old files: no chunk_id key at all (or null, from the text-guessing era)."""
    import json

    history.root.mkdir(parents=True, exist_ok=True)
    old = {
        "format": 1,
        "id": "20250101-000000-abcdef",
        "title": "old",
        "created": 1.0,
        "updated": 2.0,
        "turns": [
            {
                "question": "q",
                "answer": "a [1] [2]",
                "action": "correct",
                "evidence": [
                    {
                        "n": 1,
                        "text": "t1",
                        "source": "/d/a.pdf",
                        "page": 2,
                        "url": None,
                        "score": 0.5,
                        "kind": "document",
                    },
                    {
                        "n": 2,
                        "text": "t2",
                        "source": "/d/a.pdf",
                        "page": 3,
                        "url": None,
                        "score": 0.4,
                        "kind": "document",
                        "chunk_id": None,
                    },
                ],
            }
        ],
    }
    (history.root / "20250101-000000-abcdef.json").write_text(json.dumps(old), encoding="utf-8")
    turn = history.load("20250101-000000-abcdef").turns[0]
    assert [e.chunk_id for e in turn.evidence_items()] == [None, None]
    assert turn.evidence_items()[0] == Evidence(1, "t1", "/d/a.pdf", 2, score=0.5)


def test_list_is_most_recent_first_and_last_reopens(history: History) -> None:
    a = history.create()
    b = history.create()
    history.append(a.id, _turn("first"))
    assert [c.id for c in history.list()] == [a.id, b.id]
    assert history.last().id == a.id
    history.append(b.id, _turn("second"))
    assert history.last().id == b.id


def test_delete_and_missing(history: History) -> None:
    conv = history.create()
    assert history.delete(conv.id) is True
    assert history.delete(conv.id) is False
    with pytest.raises(LocalcragError, match="not found"):
        history.load(conv.id)
    with pytest.raises(LocalcragError, match="not a conversation id"):
        history.load("../../etc/passwd")


def test_damaged_files_are_listed_as_damaged_and_one_line_on_load(history: History) -> None:
    good = history.create()
    (history.root / "broken.json").write_text("{not json", encoding="utf-8")
    (history.root / "a-list.json").write_text(
        "[1, 2]", encoding="utf-8"
    )  # JSON, not a conversation
    assert [c.id for c in history.list()] == [good.id]  # what can be opened
    convs, damaged = history.scan()
    assert [c.id for c in convs] == [good.id]
    assert [(d.id, d.path.name) for d in damaged] == [
        ("a-list", "a-list.json"),
        ("broken", "broken.json"),
    ]
    assert all("damaged conversation file" in d.error and d.path.name in d.error for d in damaged)
    with pytest.raises(LocalcragError, match="damaged"):
        history.load("broken")
    assert history.delete("broken") and [d.id for d in history.scan()[1]] == ["a-list"]


def test_writes_are_atomic_and_leave_no_temp_files(history: History) -> None:
    conv = history.create()
    for i in range(3):
        history.append(conv.id, _turn(f"q{i}"))
    files = sorted(p.name for p in history.root.iterdir())
    assert files == [f"{conv.id}.json"]
    data = json.loads((history.root / files[0]).read_text())
    assert data["format"] == 1 and len(data["turns"]) == 3


def test_pairs_skip_cancelled_and_limit(history: History) -> None:
    conv = Conversation("x", turns=[_turn("a"), Turn("b", "partial", cancelled=True), _turn("c")])
    assert [q for q, _ in conv.pairs()] == ["a", "c"]
    assert [q for q, _ in conv.pairs(limit=1)] == ["c"]


def test_title_is_shortened() -> None:
    assert title_for("  a   b ") == "a b"
    assert len(title_for("x" * 200)) == 60


def test_history_and_backend_never_import_textual() -> None:
    for rel in ("history.py", "tui/backend.py"):
        tree = ast.parse((PKG / rel).read_text(encoding="utf-8"))
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not any(m.split(".")[0] == "textual" for m in mods), rel
