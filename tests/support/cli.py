"""Run the command line as a user does: a subprocess, its own LOCALCRAG_HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import REPO


def run_cli(*args: str, home: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "LOCALCRAG_HOME": str(home)}
    e.pop("LOCALCRAG_DEBUG", None)
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "localcrag", *args],
        capture_output=True,
        text=True,
        env=e,
        timeout=600,
        cwd=REPO,
    )


def one_line_error(out: subprocess.CompletedProcess, *words: str) -> None:
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    for w in words:
        assert w in lines[0], lines[0]
