"""The CLI as a user meets it: one-line errors, exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli import one_line_error, run_cli


def test_empty_question(isolated_home: Path) -> None:
    one_line_error(run_cli("ask", "  ", home=isolated_home), "empty")


def test_long_question(isolated_home: Path) -> None:
    one_line_error(run_cli("ask", "why" * 3333 + "?", home=isolated_home), "10,000 characters")


def test_ask_with_empty_index_says_to_ingest(isolated_home: Path) -> None:
    one_line_error(run_cli("ask", "What is a cobot?", "--offline", home=isolated_home), "ingest")


def test_missing_model_names_path_and_make_target(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text('generator = "nope.gguf"\n', encoding="utf-8")
    one_line_error(
        run_cli("ask", "What is a cobot?", home=isolated_home),
        "nope.gguf",
        "make models",
        "localcrag models",
    )


def test_corrupt_model_file(isolated_home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + os.urandom(2048))
    (isolated_home / "config.toml").write_text(f'generator = "{bad}"\n', encoding="utf-8")
    doc = tmp_path / "a.txt"
    doc.write_text("Cobots are collaborative robots that work next to people.\n", encoding="utf-8")
    assert run_cli("ingest", str(doc), home=isolated_home).returncode == 0
    one_line_error(
        run_cli("ask", "What is a cobot?", "--offline", home=isolated_home), "broken.gguf"
    )


def test_missing_path_and_unsupported_file(isolated_home: Path, tmp_path: Path) -> None:
    odd = tmp_path / "sheet.xlsx"
    odd.write_bytes(b"PK")
    out = run_cli("ingest", str(tmp_path / "nothing.pdf"), str(odd), home=isolated_home)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "nothing.pdf" in out.stderr and "sheet.xlsx" in out.stderr


def test_bad_settings_file(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text("top_k = 'many'\n", encoding="utf-8")
    one_line_error(run_cli("sources", home=isolated_home), "config.toml")


def test_debug_shows_traceback(isolated_home: Path) -> None:
    out = run_cli("ask", " ", home=isolated_home, env={"LOCALCRAG_DEBUG": "1"})
    assert out.returncode != 0 and "Traceback" in out.stderr


def test_usage_errors_are_caught_by_the_parser(isolated_home: Path) -> None:
    out = run_cli("search", "cobot", "-k", "0", home=isolated_home)
    assert out.returncode == 2 and "must be at least 1" in out.stderr
    out = run_cli("ask", "x", "--web", "--offline", home=isolated_home)
    assert out.returncode == 2 and "not allowed with" in out.stderr


def test_remove_a_folder_removes_what_was_indexed_from_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("Cobots are collaborative robots.\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("Gardening needs water.\n", encoding="utf-8")
    keep = tmp_path / "notes-2.txt"  # a sibling whose name starts like the folder: kept
    keep.write_text("Tomatoes need sun.\n", encoding="utf-8")
    assert run_cli("ingest", str(folder), str(keep), home=isolated_home).returncode == 0
    out = run_cli("remove", str(folder), home=isolated_home)
    assert out.returncode == 0 and out.stdout.count("removed ") == 2
    left = json.loads(run_cli("sources", "--json", home=isolated_home).stdout)
    assert [Path(s["source"]).name for s in left["sources"]] == ["notes-2.txt"]
    # removed by the user: kept out of the folder's next ingest, until named
    assert sorted(Path(s).name for s in left["excluded"]) == ["a.txt", "b.txt"]


def test_config_prints_lines_that_paste_into_the_toml(isolated_home: Path) -> None:
    import tomllib

    out = run_cli("config", home=isolated_home)
    body = "\n".join(line for line in out.stdout.splitlines() if not line.startswith("#"))
    parsed = tomllib.loads(body)
    assert (
        parsed["retrieval"]["top_k"] == 5
        and parsed["web"]["offline"] is False
        and isinstance(parsed["models"]["models_dir"], str)
    )
    (isolated_home / "config.toml").write_text(body, encoding="utf-8")  # pasted whole: loads
    assert run_cli("config", home=isolated_home).stdout == out.stdout


def test_a_removed_setting_in_the_file_is_one_warning_line(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text(
        'scorer = "gemma-3-270m-q4_k_m.gguf"\n', encoding="utf-8"
    )
    out = run_cli("config", home=isolated_home)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert (
        out.returncode == 0 and len(lines) == 1 and "'scorer' is no longer a setting" in lines[0]
    ), out.stderr
    assert "scorer" not in out.stdout


def test_config_documents_environment_overrides(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from localcrag.cli.main import main

    monkeypatch.setenv("LOCALCRAG_TOP_K", "8")
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert "LOCALCRAG_<NAME>" in out
    assert (
        "top_k = 8  # Chunks kept as evidence per question (best graded).  [from LOCALCRAG_TOP_K]"
        in (out.splitlines())
    )


def test_sources_count_each_document_in_its_formats_unit(
    monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """A workbook's count is sheet rows, a deck's slides, a PDF's pages (one registry:
    ingest/formats.py); a Word file's stored number counts nothing a reader knows: a dash."""
    import json

    from localcrag.cli.args import Backends
    from localcrag.cli.main import main
    from localcrag.ingest.exclusions import Exclusions
    from localcrag.ingest.formats import FORMATS
    from localcrag.ingest.rows import SourceInfo

    rows = [
        SourceInfo(f"/d/{name}", n, 3, 1764478000.0, "h")
        for name, n in (
            ("book.xlsx", 2400),
            ("deck.pptx", 1),
            ("a.pdf", 15),
            ("data.csv", 12),
            ("r.docx", 2),
        )
    ]

    class Listed:
        def __init__(self, settings: object) -> None:
            pass

        def sources(self) -> list[SourceInfo]:
            return rows

        def documents(self, sources: list[str]) -> dict[str, str]:
            return {}

        @property
        def exclusions(self) -> Exclusions:
            return Exclusions(None)

    assert main(["sources"], Backends(library=Listed)) == 0
    lines = capsys.readouterr().out.splitlines()
    counts = [line.split(" 3 chunks")[0].strip() for line in lines[:-1]]
    assert counts == ["2,400 rows", "1 slide", "15 pages", "12 rows", "—"]
    assert main(["sources", "--json"], Backends(library=Listed)) == 0
    data = json.loads(capsys.readouterr().out)["sources"]
    assert [(d["pages"], d["unit"]) for d in data] == [
        (2400, "row"),
        (1, "slide"),
        (15, "page"),
        (12, "row"),
        (2, None),
    ]
    assert {f.unit for f in FORMATS.values()} == {"page", "slide", "row", ""}


def test_config_lists_settings_in_their_declared_groups(isolated_home: Path, capsys) -> None:
    """The model's groups in its order, each under its title and its TOML table header (so
    the output pastes into config.toml), as on the settings screen."""
    from localcrag.cli.main import main
    from localcrag.settings import fields, grouped

    assert main(["config"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = [
        line.removeprefix("# --- ").removesuffix(" ---")
        for line in lines
        if line.startswith("# --- ")
    ]
    names = [
        line.removeprefix("# ").split(" = ")[0] for line in lines if " = " in line.split("  # ")[0]
    ]
    assert titles == [title for title, _ in grouped()]
    assert names == [f.name for f in fields()]
    assert names[0] == "generator" and names[-1] == "max_archive_ratio"
    tables = [line for line in lines if line.startswith("[")]
    assert tables == [f"[{group[0].group}]" for _, group in grouped()]


def test_an_empty_search_is_a_one_line_error(isolated_home: Path) -> None:
    one_line_error(run_cli("search", "  ", home=isolated_home), "empty")


def test_unsupported_files_in_a_folder_are_counted(isolated_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.txt").write_text("Cobots are collaborative robots.\n", encoding="utf-8")
    (folder / "img.svg").write_bytes(b"<svg/>")
    out = run_cli("ingest", str(folder), home=isolated_home)
    assert (
        out.returncode == 0 and "skipped 1 file(s) of unsupported types in folders: " in out.stdout
    )
    assert (
        "img.svg (supported: .csv, .docx," in out.stdout and ".doc," not in out.stdout
    )  # names it
    assert "[1/1] indexed a.txt" in out.stderr  # no terminal: a line per file
    data = run_cli("ingest", str(folder), "--json", home=isolated_home).stdout
    assert "skipped" not in data  # the JSON contract (docs/cli-json.md) is unchanged


@pytest.mark.slow  # ingests with the real embedder in a subprocess
def test_a_name_with_a_newline_prints_as_one_line(isolated_home: Path, tmp_path: Path) -> None:
    from localcrag.cli.args import shown

    assert shown("a\nb.md") == "a\\nb.md" and shown("tab\there é.md") == "tab\\there é.md"
    odd = tmp_path / "two\nlines.md"
    odd.write_text("# Robots\n\nCobots work next to people in factories.\n", encoding="utf-8")
    assert run_cli("ingest", str(odd), home=isolated_home).returncode == 0
    out = run_cli("sources", home=isolated_home)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and lines[0].endswith("two\\nlines.md"), out.stdout  # entry + total
    import json

    data = json.loads(run_cli("sources", "--json", home=isolated_home).stdout)
    assert data["sources"][0]["source"] == str(odd)  # JSON keeps the exact name


@pytest.mark.slow  # ingests and asks with the real models in subprocesses
def test_search_names_its_score_and_ask_shows_and_undoes_a_rewrite(
    isolated_home: Path, tmp_path: Path
) -> None:
    doc = tmp_path / "robots.txt"
    doc.write_text(
        "Cobots are collaborative robots. They work in factories next to people.\n",
        encoding="utf-8",
    )
    assert run_cli("ingest", str(doc), home=isolated_home).returncode == 0
    out = run_cli("search", "cobots", home=isolated_home)
    assert (
        out.returncode == 0
        and "Score: reciprocal-rank fusion" in out.stdout
        and "(RRF 0." in out.stdout
    )
    asked = ["ask", "Where do they work?", "--after", "What are cobots?", "--offline"]
    out = run_cli(*asked, home=isolated_home)
    assert out.returncode == 0 and "understood as:" in out.stderr and "--no-rewrite" in out.stderr
    out = run_cli(*asked, "--no-rewrite", "--json", home=isolated_home)
    assert out.returncode == 0 and '"rewritten": null' in out.stdout
