"""Section 9, bounded reads: what the question path and the model-server client read.

Each case runs the real CLI in a new process (``run_process``: its own ``ru_maxrss``) on a
fresh LOCALCRAG_HOME:

* a one-page PDF holding a 100 x 100 ruled grid (the table finder ran > 300 s before
  ``limits.max_table_cells``): ``ingest``;
* a codebook whose definition line holds 60,000 spaces, then "What does CRIM mean?" (one
  question took 77 s while the definition pattern was quadratic): ``ask --offline``;
* a model server on 127.0.0.1 (tests/unit/llm/test_endpoint_bounds.py's) whose model list never
  ends, whose stream never ends, and one that drips its stream a byte at a time for 30 s
  (read whole, or waited on, before the caps and ``llm_endpoint_deadline``): ``ask`` falls
  back to the local model with one line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bench import run_process, temp_home

DRIP_DEADLINE_S = 20  # llm_endpoint_deadline for the drip case (default 300 s: a real server)


def _codebook(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "codebook.md"
    path.write_text(
        "# Variables of the housing data\n\n"
        + "- CRIM"
        + " " * 60_000
        + "per capita crime rate by town\n"
        + "- ZN     proportion of residential land zoned for large lots\n",
        encoding="utf-8",
    )
    return path


def _cli(home: Path, *args: str, env: dict | None = None):  # noqa: ANN202 - bench.Proc
    return run_process(
        [sys.executable, "-m", "localcrag", *args],
        env={**os.environ, "LOCALCRAG_HOME": str(home), **(env or {})},
    )


def cases(root: Path) -> dict[str, tuple[float, float, str]]:
    """label -> (seconds, peak RSS MB, outcome in a few words)."""
    from tests.support.documents import ruled_grid_pdf
    from tests.support.modelserver import Misbehaving, misbehaving

    out: dict[str, tuple[float, float, str]] = {}
    grid = ruled_grid_pdf(root / "grid.pdf", 100)
    with temp_home("lcbench-reads-") as home:
        p = _cli(home, "ingest", "--json", str(grid))
        report = json.loads(p.stdout.strip().splitlines()[-1])
        warned = "; ".join(w["warning"] for w in report["warnings"])
        out["one-page PDF, 100 x 100 ruled grid: ingest"] = (
            p.wall,
            p.rss_mb,
            f"indexed {len(report['indexed'])}"
            + ("; read as text (cell limit)" if "max_table_cells" in warned else ""),
        )
    with temp_home("lcbench-reads-") as home:
        _cli(home, "ingest", str(_codebook(root / "codebook")))
        p = _cli(home, "ask", "--json", "--offline", "What does CRIM mean?")
        ok = p.rc == 0 and "crime" in p.stdout.lower()
        out["definition line of 60,000 spaces: ask 'What does CRIM mean?'"] = (
            p.wall,
            p.rss_mb,
            "answered from the codebook" if ok else f"exit {p.rc}",
        )
        for label, chat, models, deadline in (
            ("model server: a model list that never ends", "endless-stream", "endless", None),
            ("model server: a stream that never ends", "endless-stream", "ok", None),
            (
                f"model server: a stream dripping byte by byte (deadline {DRIP_DEADLINE_S} s)",
                "drip",
                "ok",
                DRIP_DEADLINE_S,
            ),
        ):
            state = Misbehaving()
            state.chat, state.models = chat, models
            with misbehaving(state) as url:
                env = {"LOCALCRAG_LLM_ENDPOINT": url}
                if deadline:
                    env["LOCALCRAG_LLM_ENDPOINT_DEADLINE"] = str(deadline)
                p = _cli(home, "ask", "--json", "What does CRIM mean?", env=env)
            try:  # `ask --json` says why it fell back: generator.fallback
                said = json.loads(p.stdout.strip().splitlines()[-1])["generator"]
                line = str(said.get("fallback") or "")
            except (ValueError, IndexError, KeyError, TypeError, AttributeError):
                line = p.stderr.strip()[-100:]
            out[label] = (
                p.wall,
                p.rss_mb,
                f"exit {p.rc}{' (answer restarted)' if p.rc == 3 else ''}; "
                f"server sent {state.sent:,} bytes; {line[:100]}",
            )
    return out
