"""Nothing a document holds disguises what is shown.

A document's Markdown link ``[https://bank.example/reset](https://evil.example/phish)`` is
shown as written in ``ask`` (terminal and pipe) and in the TUI's answer: never a hyperlink
whose label is not its target. Bidi controls ("\\u202e05\\u202c mg" would show as "50 mg")
and zero-width characters, in document text and in file names, are spelled out in every
line; a file name with a newline stays on one line of the ingest log."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from localcrag.cli.main import main
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

# bidi embeddings/overrides/isolates, LRM/RLM, ALM; zero-width space/joiners, word joiner, BOM
INVISIBLE = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff]")
DOSE = "The daily dose of lumorex is \u202e05\u202c mg for adults."
PHISH = "Reset your lumorex account password at [https://bank.example/reset](https://evil.example/phish) today."
HIDDEN = "The lumorex pump is refilled by the night\u200b\u2060shift nurse."
# OSC 8: ESC ] 8 ; params ; URI ST  label  ESC ] 8 ; ; ST (ST is ESC \ or BEL)
OSC8 = re.compile(
    r"\x1b\]8;[^;\x07\x1b]*;([^\x07\x1b]*)(?:\x1b\\|\x07)(.*?)\x1b\]8;;(?:\x1b\\|\x07)", re.S
)
SGR = re.compile(r"\x1b\[[0-9;]*m")
OSC8_PART = re.compile(r"\x1b\]8;[^\x07\x1b]*(?:\x1b\\|\x07)")


def _links(rendered: str) -> list[tuple[str, str]]:
    """(target, visible label) of every terminal hyperlink in ``rendered``."""
    return [(m[1], SGR.sub("", m[2])) for m in OSC8.finditer(rendered)]


def _seen(rendered: str) -> str:
    """What a terminal shows of ``rendered``: no colours, no hyperlink targets."""
    return OSC8_PART.sub("", SGR.sub("", rendered))


@pytest.fixture()
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real CLI with the fake embedder and grader (quoted answers need no model)."""
    from localcrag.crag import pipeline
    from localcrag.ingest import library

    real = pipeline.Pipeline
    monkeypatch.setattr(library, "load_embedder", lambda *a, **k: FakeEmbedder())
    monkeypatch.setattr(
        pipeline,
        "Pipeline",
        lambda settings: real(settings, grader=FakeGrader(), generator=FakeGenerator()),
    )


@pytest.fixture()
def disguised(tmp_path: Path, fakes: None, capsys: pytest.CaptureFixture[str]) -> str:
    """A folder of documents with a phishing link, bidi and zero-width text, and file names
    holding a right-to-left override and a newline; returns the ingest log (stderr)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "dose.txt").write_text(f"{DOSE}\n\n{HIDDEN}\n", encoding="utf-8")
    (folder / "account.md").write_text(f"# Account\n\n{PHISH}\n", encoding="utf-8")
    (folder / "invoice\u202etxt.exe.txt").write_text(
        "The lumorex invoice is due in March.\n", encoding="utf-8"
    )
    (folder / "notes\nindexed 9, failed 0.txt").write_text(
        "The lumorex notes list the ward rounds.\n", encoding="utf-8"
    )
    capsys.readouterr()
    assert main(["ingest", str(folder)]) == 0
    return capsys.readouterr().err


class _Terminal(io.StringIO):
    """A stdout that says it is a terminal, so ``ask`` renders Markdown as it would there."""

    def isatty(self) -> bool:
        return True


def test_a_file_name_with_a_newline_stays_on_one_line_of_the_ingest_log(disguised: str) -> None:
    lines = disguised.splitlines()
    assert not any(line.startswith("indexed 9, failed 0") for line in lines), disguised
    assert any("notes\\nindexed 9, failed 0.txt" in line for line in lines), disguised
    assert any("invoice\\u202etxt.exe.txt" in line for line in lines), disguised
    assert not INVISIBLE.search(disguised), repr(disguised)


def test_search_sources_and_ask_print_no_bidi_or_zero_width_character(
    disguised: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, expected in (
        (["search", "daily dose lumorex adults"], "\\u202e05\\u202c mg"),
        (["search", "lumorex pump refilled night shift"], "night\\u200b\\u2060shift"),
        (["sources"], "invoice\\u202etxt.exe.txt"),
        (
            [
                "ask",
                "What is the daily dose of lumorex for adults?",
                "--offline",
                "--style",
                "extractive",
            ],
            "\\u202e05\\u202c mg",
        ),
    ):
        assert main(argv) == 0
        out = capsys.readouterr()
        assert not INVISIBLE.search(out.out + out.err), f"{argv}: {out.out + out.err!r}"
        assert expected in out.out, f"{argv}: {out.out}"


def test_ask_in_a_terminal_shows_a_documents_link_with_its_target(
    disguised: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = _Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    question = "Where do I reset my lumorex account password?"
    assert main(["ask", question, "--offline", "--style", "extractive"]) == 0
    shown = screen.getvalue()
    assert "bank.example/reset" in shown, shown
    for target, label in _links(shown):
        assert label == target, f"a link labelled {label!r} goes to {target!r}"
    assert "https://evil.example/phish" in _seen(shown), repr(shown)


@pytest.mark.parametrize(
    "text",
    [
        PHISH,
        "[1]: https://evil.example/phish\n\nSee [the bank][1] now.",  # a reference definition
        "See ![bank](https://evil.example/pixel.png) and <a href='https://evil.example'>bank</a>.",
        "See \\[bank\\](https://evil.example/phish) or &#x202e;05&#x202c; mg.",  # escapes, entities
    ],
)
def test_the_answer_view_links_nothing_a_document_wrote(text: str) -> None:
    from localcrag.cli.render import AnswerView

    screen = io.StringIO()
    with AnswerView(screen, terminal=True) as view:
        view.feed(text[:20])
        view.finish(f"{text} [1].")
    rendered = screen.getvalue()
    assert _links(rendered) == [] and "\x1b]8;" not in rendered, repr(rendered)
    assert "evil.example" in _seen(rendered), repr(rendered)
    assert not INVISIBLE.search(rendered), repr(rendered)


def test_the_tui_answer_links_nothing_whose_label_hides_its_target() -> None:
    pytest.importorskip("textual")
    from markdown_it import MarkdownIt

    from localcrag.tui.widgets.answer import link_citations

    text = f"{PHISH} [1] See [the bank][1] and ![x](https://evil.example/i.png).\n\n[1]: https://evil.example"
    links, label, href = [], "", None
    for block in MarkdownIt("gfm-like").parse(link_citations(text, [1])):  # as Textual parses
        for t in block.children or []:
            if t.type in ("link_open", "image"):
                href, label = t.attrs.get("href") or t.attrs.get("src"), ""
            elif t.type == "text" and href is not None:
                label += t.content
            if t.type in ("link_close", "image"):
                links.append((href, label))
                href = None
    assert ("cite:1", "[1]") in links, links
    for target, shown in links:  # a bare URL may be linked (Textual's linkify): as itself
        assert target == f"cite:{shown[1:-1]}" or target == shown, links


@pytest.mark.parametrize(
    "char",
    [
        "\u202a",
        "\u202e",
        "\u2066",
        "\u2069",
        "\u200e",
        "\u200f",
        "\u061c",
        "\u200b",
        "\u200d",
        "\u2060",
        "\ufeff",
    ],
)
def test_one_spelling_for_invisible_characters_in_text_and_names(char: str) -> None:
    from localcrag.textutil import shown, terminal_safe, visible

    spelled = f"\\u{ord(char):04x}"
    assert (
        visible(f"a{char}b") == terminal_safe(f"a{char}b") == shown(f"a{char}b") == f"a{spelled}b"
    )
    assert terminal_safe(terminal_safe(f"a{char}b")) == f"a{spelled}b"  # shown twice: the same
