"""The headless core never imports textual; `--help` never imports heavy libraries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support import REPO

PKG = REPO / "localcrag"
HEAVY = [
    "torch",
    "sentence_transformers",
    "llama_cpp",
    "lancedb",
    "pymupdf",
    "fitz",
    "textual",
    "transformers",
    "ddgs",
    "matplotlib",
]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_textual() -> None:
    offenders = [
        str(p.relative_to(PKG))
        for p in PKG.rglob("*.py")
        if "tui" not in p.relative_to(PKG).parts and "textual" in _imports(p)
    ]
    assert offenders == [], f"textual imported outside localcrag/tui/: {offenders}"


def test_tui_exists_and_is_the_only_textual_user() -> None:
    """The app is built on textual (so the check above guards something real)."""
    users = [p for p in (PKG / "tui").rglob("*.py") if "textual" in _imports(p)]
    assert len(users) >= 5, users  # the app, its screens, modals and widgets


def test_help_is_instant_and_imports_nothing_heavy() -> None:
    code = (
        "import sys; from localcrag.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_module_entry_point_works() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "localcrag", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("localcrag ")
