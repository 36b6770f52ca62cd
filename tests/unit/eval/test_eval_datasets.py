"""Dataset adapters on small slices of the shared data, and the generic folder format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.errors import LocalcragError
from localcrag.eval.ablation import ablate
from localcrag.eval.adapters import load_dataset
from localcrag.eval.datasets import Question, load_squad, select
from localcrag.types import Chunk


def _chunk(source: Path | str, start: int = 0, end: int = 10) -> Chunk:
    return Chunk("c", str(source), "x" * (end - start), 1, 1, start, end)


def test_val_json_applies_the_readme_label_fixes(shared_data: Path) -> None:
    ds = load_dataset(shared_data / "ai-information" / "val.json")
    by_q = {q.question: q for q in ds.questions}
    assert ds.name == "ai-information" and len(ds.questions) == 10
    dac = by_q["What is Direct Air Capture (DAC) used for?"]
    assert not dac.answerable and dac.gold == () and dac.answers == ()
    assert by_q["What is the role of AI in smart grids?"].gold == ("chapter-14",)
    assert by_q["What is 'Explainable AI' and why is it considered important?"].gold == (
        "chapter-5",
        "chapter-19",
    )
    assert sum(q.answerable for q in ds.questions) == 4
    assert ds.corpus(Path("/nowhere")) == [shared_data / "ai-information" / "AI_Information.pdf"]


def test_val_json_chunks_map_to_the_chapters_they_overlap(shared_data: Path) -> None:
    from localcrag.ingest.parse import parse_document

    ds = load_dataset(shared_data / "ai-information" / "val.json")
    pdf = shared_data / "ai-information" / "AI_Information.pdf"
    text = parse_document(pdf).text
    at = text.index("Chapter 14:")
    assert ds.units(_chunk(pdf, at + 5, at + 50)) == ("chapter-14",)
    assert ds.units(_chunk(pdf, at - 30, at + 5)) == ("chapter-13", "chapter-14")
    assert ds.units(_chunk("/elsewhere.pdf", at, at + 5)) == ()


def test_squad_paragraphs_become_files_and_pairs_are_deterministic(
    shared_data: Path, tmp_path: Path
) -> None:
    ds = load_dataset(shared_data / "squad2-dev-subset" / "small.json")
    assert ds.name == "squad2" and len(ds.questions) == 626 and len(ds.passages) == 87
    assert sum(q.answerable for q in ds.questions) == 293
    q = next(q for q in ds.questions if q.answerable)
    assert q.gold == (q.context_id,) and q.context_id == "Normans-000"
    [docs] = ds.corpus(tmp_path)
    files = sorted(docs.glob("*.md"))
    assert len(files) == 87
    assert files[0].read_text(encoding="utf-8").startswith("# Computational complexity theory\n\n")
    mtime = files[0].stat().st_mtime_ns
    ds.corpus(tmp_path)  # unchanged content is not rewritten, so the index is re-used
    assert files[0].stat().st_mtime_ns == mtime
    assert ds.units(_chunk(docs / "Normans-003.md")) == ("Normans-003",)
    for pid, (title, text) in ds.passages.items():  # a paragraph opening with its title stays whole
        if text.startswith(title.replace("_", " ")):
            assert text.strip() in (docs / f"{pid}.md").read_text(encoding="utf-8")

    sliced = select(ds.questions, 20, seed=1)
    pairs = ds.pairs(sliced, seed=1)
    assert pairs == ds.pairs(sliced, seed=1)
    kinds = {p.kind for p in pairs}
    assert kinds == {"relevant", "easy", "hard", "near_miss", "ablated"}
    for p in pairs:
        own = next(x for x in sliced if x.qid == p.qid)
        group = ds.passages[own.context_id][0]
        if p.kind in ("relevant", "near_miss", "ablated"):
            assert p.passage_id == own.context_id
        elif p.kind == "hard":
            assert ds.passages[p.passage_id][0] == group and p.passage_id != own.context_id
        else:
            assert ds.passages[p.passage_id][0] != group
    # a question's negatives do not depend on which other questions are in the slice
    first = [p for p in pairs if p.qid == sliced[0].qid]
    assert first == [p for p in ds.pairs(sliced[:1], seed=1)]


def test_anthropic_docs_gold_links_map_to_materialised_files(
    shared_data: Path, tmp_path: Path
) -> None:
    ds = load_dataset(shared_data / "anthropic-docs")
    assert ds.name == "anthropic-docs" and len(ds.questions) == 100
    assert all(q.answerable and q.gold for q in ds.questions)
    [docs] = ds.corpus(tmp_path)
    stems = {p.stem for p in docs.glob("*.md")}
    assert len(stems) == 232
    assert all(g in stems for q in ds.questions for g in q.gold)
    raw = json.loads((shared_data / "anthropic-docs" / "docs_evaluation_dataset.json").read_text())
    q0 = ds.questions[0]
    assert [ds.unit_labels[g] for g in q0.gold] == raw[0]["correct_chunks"]
    assert ds.units(_chunk(docs / f"{q0.gold[0]}.md")) == (q0.gold[0],)
    page = (docs / f"{q0.gold[0]}.md").read_text(encoding="utf-8")
    heading = page.splitlines()[0][2:]
    assert page.count(heading) == 1  # the heading line the texts repeat is written once


def test_generic_folder(tmp_path: Path) -> None:
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "sub" / "a.md").write_text("# A\n\nAlpha.\n")
    lines = [
        {"question": "What is alpha?", "answer": "Alpha", "gold_sources": ["sub/a.md"]},
        {"question": "What is omega?", "answerable": False},
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(map(json.dumps, lines)) + "\n\n")
    ds = load_dataset(tmp_path)
    assert ds.name == "generic"
    assert [(q.answerable, q.gold, q.answers) for q in ds.questions] == [
        (True, ("sub/a.md",), ("Alpha",)),
        (False, (), ()),
    ]
    assert ds.corpus(tmp_path / "work") == [(tmp_path / "docs").resolve()]
    assert ds.units(_chunk((tmp_path / "docs" / "sub" / "a.md").resolve())) == ("sub/a.md",)
    (tmp_path / "questions.jsonl").write_text('{"answer": "no question"}\n')
    with pytest.raises(LocalcragError, match="line 1"):
        load_dataset(tmp_path)


@pytest.mark.parametrize("name", ["missing", "empty_dir", "other.json", "notes.txt"])
def test_unrecognised_paths_say_what_is_expected(tmp_path: Path, name: str) -> None:
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "other.json").write_text('{"hello": 1}')
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(LocalcragError) as exc:
        load_dataset(tmp_path / name)
    msg = str(exc.value)
    assert "\n" not in msg and "questions.jsonl" in msg and "val.json" in msg


def test_select_is_balanced_deterministic_and_keeps_file_order() -> None:
    qs = [Question(f"q{i}", f"question {i}", (), i % 3 == 0) for i in range(30)]
    a = select(qs, 6, seed=3)
    assert a == select(qs, 6, seed=3) and a != select(qs, 6, seed=4)
    assert sum(q.answerable for q in a) == 3
    assert [int(q.qid[1:]) for q in a] == sorted(int(q.qid[1:]) for q in a)
    assert select(qs, None, 0) == qs and select(qs, 100, 0) == qs


PARAGRAPH = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They were descended from Norse raiders and pirates from "
    "Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to "
    "King Charles III of West Francia. Their identity emerged in the first half of the 10th "
    "century."
)


def test_ablate_cuts_exactly_the_answer_sentences() -> None:
    start = PARAGRAPH.index("Rollo")
    cut = ablate(PARAGRAPH, [(start, start + len("Rollo"))])
    assert cut is not None and "Rollo" not in cut
    assert cut.startswith("The Normans were") and cut.endswith("10th century.")
    assert ablate(PARAGRAPH, [(len(PARAGRAPH) + 5, len(PARAGRAPH) + 9)]) is None  # span not in text
    assert ablate("Only Rollo.", [(5, 10)]) is None  # nothing left


def test_squad_pairs_gain_ablated_negatives(shared_data: Path) -> None:
    ds = load_squad(shared_data / "squad2-dev-subset" / "small.json")
    pairs = ds.pairs(ds.questions, seed=0)
    ablated = [p for p in pairs if p.kind == "ablated"]
    by_id = {q.qid: q for q in ds.questions}
    assert len(ablated) > 200 and all(p.label == 0 for p in ablated)
    for p in ablated:
        q = by_id[p.qid]
        own = ds.passages[q.context_id][1]
        assert len(p.text) < len(own) and not any(a.lower() in p.text.lower() for a in q.answers)


def test_a_generic_set_reports_one_named_slice(tmp_path: Path) -> None:
    """`--slice held` reports only the questions never looked at while fixing; an unknown
    slice is one clear error naming the slices there are."""
    from localcrag.eval.datasets import load_generic
    from localcrag.eval.runner import _of_slice

    (tmp_path / "docs").mkdir()
    lines = [
        {"question": "a?", "answer": ["x"], "slice": "dev"},
        {"question": "b?", "answerable": False, "slice": "held"},
        {"question": "c?", "answer": ["y"]},
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    ds = load_generic(tmp_path)
    assert [q.question for q in _of_slice(ds.questions, "held")] == ["b?"]
    assert len(_of_slice(ds.questions, None)) == 3
    with pytest.raises(LocalcragError, match="choose one of: dev, held"):
        _of_slice(ds.questions, "test")
