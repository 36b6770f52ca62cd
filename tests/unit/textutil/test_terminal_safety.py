"""No escape sequence from a document, a web result or a model reaches the terminal.

Documents (.txt, PDF, .docx) carrying CSI (``ESC[2J``: clear the screen), OSC (``ESC]0;..BEL``:
set the window title) and C1 codes (0x9b is an 8-bit CSI) are indexed as they are; ``search``
and ``ask`` print them without a single ESC or C1 character, while ``--json`` keeps the exact
stored text (escaped as ``\\u001b``). The TUI side is in test_tui_terminal.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from localcrag.cli.main import main
from localcrag.textutil import shown, terminal_safe, terminal_safe_fields
from localcrag.types import Chunk, Evidence

BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what must never be printed (\n, \t allowed)
CSI, OSC, C1_CSI, C1_OSC = "\x1b[2J\x1b[31;1m", "\x1b]0;pwned\x07", "\x9b2J", "\x9d0;pwned\x9c"
TXT = (
    f"Cobots are collaborative robots{CSI} that work next to people in factories.{OSC} "
    f"They were invented{C1_CSI} in 1996 at Northwestern University.{C1_OSC}\n"
)
PDF = f"The lighthouse keeper{CSI} lit the lamp every evening at dusk.{OSC}"
DOCX = f"The greenhouse{C1_CSI} grows tomatoes all winter long.{C1_OSC}"  # XML forbids ESC itself


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("a\x1b[2Jb", "ab"),
        ("x\x1b]0;title\x07y", "xy"),
        ("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\y", "xlinky"),
        ("c\x9b31mred\x9d0;t\x9cd", "credd"),
        ("\x1bc reset", " reset"),
        ("tab\tand\nline", "tab\tand\nline"),
        ("over\rwrite", "over\nwrite"),
        ("nul\x00 del\x7f bell\x07", "nul del bell"),
        ("é — 中", "é — 中"),
        ("lone escape\x1b", "lone escape"),
        ("cut \x1b]0;unterminated title", "cut 0;unterminated title"),
    ],
)
def test_terminal_safe_removes_sequences_and_controls(raw: str, clean: str) -> None:
    assert terminal_safe(raw) == clean
    assert not BAD.search(terminal_safe(raw))


def test_fields_of_events_are_cleaned_and_untouched_ones_kept() -> None:
    ok = Evidence(1, "plain text", "/d/a.txt", 1)
    assert terminal_safe_fields(ok) is ok  # nothing to clean: the same object
    bad = Evidence(2, f"text{CSI}", "/d/b.txt", 1, chunk_id="c2")
    chunk = Chunk("c3", "/d/c.txt", f"body{OSC}", 1, 1, 0, 10, "head")
    out = terminal_safe_fields((ok, bad, [chunk], {"k": C1_CSI}))
    assert out[0] is ok and out[1].text == "text" and out[1].chunk_id == "c2"
    assert out[2][0].text == "body" and out[3] == {"k": ""}
    assert bad.text == f"text{CSI}"  # the original is never changed
    assert shown("a\x1b[2J\nb\udcff") == "a\\x1b[2J\\nb\\udcff"  # names: escaped, visible


def test_a_sequence_streamed_in_pieces_is_removed_whole() -> None:
    from localcrag.crag.answer.shaping import SentenceGate
    from localcrag.textutil import terminal_safe_prefix

    pieces = [
        "\x1b",
        "]0;",
        "owned",
        "\x07Cobots work ",
        "\x1b[",
        "2",
        "J",
        "next to ",
        "\x9b3",
        "1m",
        "people.",
        "\x1b]0;x",
        "\x1b\\ Done",
    ]
    held, out = "", ""
    for piece in pieces:
        text, held = terminal_safe_prefix(held + piece)
        out += text
    assert out + terminal_safe(held) == "Cobots work next to people. Done"
    ev = [Evidence(1, "Cobots work next to people in factories.", "/d/c.txt", 1)]
    gate = SentenceGate(ev, "Where do cobots work?")
    shown_text = "".join(
        gate.feed(p)[0]
        for p in [
            "\x1b]0;",
            "owned\x07Cobots work ",
            "\x1b[2",
            "J",
            "next to people in factories [1].",
        ]
    )
    shown_text += gate.finish()
    assert "Cobots work next to people in factories" in shown_text and not BAD.search(shown_text)
    assert "owned" not in shown_text + gate.text


@pytest.fixture()
def hostile_docs(tmp_path: Path) -> Path:
    pymupdf = pytest.importorskip("pymupdf")
    docx = pytest.importorskip("docx")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cobots.txt").write_text(TXT, encoding="utf-8")
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), PDF)
    pdf.save(folder / "lighthouse.pdf")
    doc = docx.Document()
    doc.add_paragraph(DOCX)
    doc.save(folder / "greenhouse.docx")
    assert main(["ingest", str(folder)]) == 0
    return folder


def _printed(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 0
    out = capsys.readouterr()
    both = out.out + out.err
    assert not BAD.search(both), repr(BAD.search(both))
    return out.out


def test_search_prints_no_escape_codes_and_json_keeps_the_stored_text(
    hostile_docs: Path, capsys: pytest.CaptureFixture
) -> None:
    for query, words in (
        ("cobots invented", "They were invented in 1996"),
        ("lighthouse keeper lamp", "The lighthouse keeper lit the lamp"),
        ("greenhouse tomatoes", "The greenhouse grows tomatoes"),
    ):
        out = _printed(capsys, ["search", query, "-k", "3"])
        assert words in out, out
        data = json.loads(_printed(capsys, ["search", query, "-k", "3", "--json"]))
        texts = " ".join(r["text"] for r in data["results"])
        assert any(code in texts for code in (CSI, OSC, C1_CSI, C1_OSC))  # stored as it was


def test_ask_quoting_the_documents_prints_no_escape_codes(
    hostile_docs: Path, capsys: pytest.CaptureFixture
) -> None:
    out = _printed(
        capsys, ["ask", "When were cobots invented?", "--offline", "--style", "extractive"]
    )
    assert "1996" in out and "cobots.txt" in out
    data = json.loads(
        _printed(
            capsys,
            ["ask", "When were cobots invented?", "--offline", "--style", "extractive", "--json"],
        ).splitlines()[-1]
    )
    assert "1996" in data["answer"]


def test_model_output_with_escape_codes_is_printed_clean(
    hostile_docs: Path, fake, monkeypatch, capsys: pytest.CaptureFixture
) -> None:
    script, url = fake
    script.plan["/v1/chat/completions"] = [
        (200, ["\x1b]0;owned\x07Cobots work next to ", "people\x1b[2J in factories \x9b31m[1]."])
    ]
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", url)
    out = _printed(capsys, ["ask", "Where do cobots work?", "--style", "generative"])
    assert "Cobots work next to people in factories" in out and "owned" not in out, out
