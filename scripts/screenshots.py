#!/usr/bin/env python
"""Re-take the README screenshots with the real models: docs/screenshots/{chat,library}.png.

Runs the app headless (Textual's pilot) in a temporary LOCALCRAG_HOME, indexes the shared
ai-information PDFs, asks one question offline, saves each screen as SVG and converts it
with `rsvg-convert` (Debian's librsvg2-bin). Usage:

    .venv/bin/python scripts/screenshots.py [--question "..."]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PDFS = sorted((REPO.parent / "shared" / "data" / "ai-information").glob("*.pdf"))
OUT = REPO / "docs" / "screenshots"
SIZE = (120, 36)


async def _settle(pilot) -> None:  # noqa: ANN001
    for _ in range(3):
        ours = [w for w in pilot.app.workers if w.group != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


async def take(question: str) -> dict[str, str]:
    from textual.widgets import Input

    from localcrag.settings import Settings
    from localcrag.tui.app import LocalcragApp

    app = LocalcragApp(Settings(offline=True), browse_root=PDFS[0].parent)
    shots: dict[str, str] = {}
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        if app.model_state != "ready":
            raise SystemExit(f"models not ready: {app.model_error}")
        app.start_ingest(PDFS)
        await _settle(pilot)
        app.screen.query_one("#question", Input).value = question
        await pilot.press("enter")
        await _settle(pilot)
        shots["chat"] = app.export_screenshot(title="localcrag")
        await pilot.press("ctrl+l")
        await _settle(pilot)
        shots["library"] = app.export_screenshot(title="localcrag")
    return shots


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--question", default="What are the main ethical concerns about AI?")
    args = ap.parse_args()
    if not PDFS or not shutil.which("rsvg-convert"):
        print("needs ../shared/data/ai-information/*.pdf and rsvg-convert", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="lc-shots-") as home:
        os.environ["LOCALCRAG_HOME"] = home
        shots = asyncio.run(take(args.question))
    OUT.mkdir(parents=True, exist_ok=True)
    for name, svg in shots.items():
        src = Path(tempfile.gettempdir()) / f"localcrag-{name}.svg"
        src.write_text(svg, encoding="utf-8")
        subprocess.run(
            ["rsvg-convert", "-z", "1.25", "-o", str(OUT / f"{name}.png"), str(src)], check=True
        )
        print(OUT / f"{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
