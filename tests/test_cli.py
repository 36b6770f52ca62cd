"""The CLI as a user meets it: one-line errors, exit codes, no tracebacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cli(*args: str, home: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "LOCALCRAG_HOME": str(home)}
    e.pop("LOCALCRAG_DEBUG", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "localcrag", *args], capture_output=True,
                          text=True, env=e, timeout=600, cwd=REPO)


def _one_line_error(out: subprocess.CompletedProcess, *words: str) -> None:
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    for w in words:
        assert w in lines[0], lines[0]


def test_empty_question(isolated_home: Path) -> None:
    _one_line_error(_cli("ask", "  ", home=isolated_home), "empty")


def test_long_question(isolated_home: Path) -> None:
    _one_line_error(_cli("ask", "why" * 3333 + "?", home=isolated_home), "10,000 characters")


def test_ask_with_empty_index_says_to_ingest(isolated_home: Path) -> None:
    _one_line_error(_cli("ask", "What is a cobot?", "--offline", home=isolated_home), "ingest")


def test_missing_model_names_path_and_make_target(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text('generator = "nope.gguf"\n', encoding="utf-8")
    _one_line_error(_cli("ask", "What is a cobot?", home=isolated_home), "nope.gguf", "make models")


def test_corrupt_model_file(isolated_home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + os.urandom(2048))
    (isolated_home / "config.toml").write_text(f'generator = "{bad}"\n', encoding="utf-8")
    doc = tmp_path / "a.txt"
    doc.write_text("Cobots are collaborative robots that work next to people.\n", encoding="utf-8")
    assert _cli("ingest", str(doc), home=isolated_home).returncode == 0
    _one_line_error(_cli("ask", "What is a cobot?", "--offline", home=isolated_home), "broken.gguf")


def test_missing_path_and_unsupported_file(isolated_home: Path, tmp_path: Path) -> None:
    odd = tmp_path / "sheet.xlsx"
    odd.write_bytes(b"PK")
    out = _cli("ingest", str(tmp_path / "nothing.pdf"), str(odd), home=isolated_home)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "nothing.pdf" in out.stderr and "sheet.xlsx" in out.stderr


def test_bad_settings_file(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text("top_k = 'many'\n", encoding="utf-8")
    _one_line_error(_cli("sources", home=isolated_home), "config.toml")


def test_debug_shows_traceback(isolated_home: Path) -> None:
    out = _cli("ask", " ", home=isolated_home, env={"LOCALCRAG_DEBUG": "1"})
    assert out.returncode != 0 and "Traceback" in out.stderr
