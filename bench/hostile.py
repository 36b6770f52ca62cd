"""Section 8: hostile files: peak RSS and seconds of `localcrag ingest` on inputs built here.

Each run is a new process (``run_process``: its own ``ru_maxrss``) on a fresh
LOCALCRAG_HOME: a 50 MB text file with no newline, and an EPUB whose 8 chapters inflate
from ~2.6 MB to ~880 MB (9.2 GB and 8 GB of peak memory before the limits). The bomb
is measured alone and with a good file beside it (which must still be indexed); a good
file alone gives the floor any ingest pays (embedder + LanceDB). Bounded reads: a
200,000-row .xlsx and the same rows as .csv (both refused by max_file_chars as rows stream
in), a 5,000-column CSV (refused by max_sheet_cells), and pictures 30,000 and 60,000 px
wide with a line of text (read by OCR in tiles). Not quick: a 2 MB single-line file within
the limits, indexed to the end.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from bench import Row, Section, fmt, hostile_reads, log, run_process, temp_home

GOOD = "# Cats\n\nThe office cat is called Miso. She sleeps on the printer.\n"


def wide_png(path: Path, width: int, height: int = 200) -> Path:
    """A white picture ``width`` px wide with a line of words drawn along all of it."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(img)
    try:
        font: object = ImageFont.truetype("DejaVuSans.ttf", 40)
    except OSError:
        font = ImageFont.load_default(size=40)
    words = "the lighthouse keeper counts ships along the northern harbor wall".split()
    x, i = 20, 0
    while x < width - 400:
        text = f"{words[i % len(words)]} {i}"
        draw.text((x, height // 2), text, fill=0, font=font, anchor="lm")
        x = int(draw.textbbox((x, height // 2), text, font=font, anchor="lm")[2]) + 30
        i += 1
    img.save(path)
    return path


def sheet_rows(n: int) -> list[list[str]]:
    """Stock-price rows (Date, Open, High, Low, Close, Volume)."""
    return [
        [
            f"{2000 + i // 366}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            f"{10 + i % 97}.{i % 100:02d}",
            f"{11 + i % 89}.{i % 91:02d}",
            f"{9 + i % 83}.{i % 87:02d}",
            f"{10 + i % 79}.{i % 73:02d}",
            str(100_000 + i * 37 % 900_000),
        ]
        for i in range(n)
    ]


def _sheets(root: Path) -> dict[str, list[Path]]:
    import openpyxl

    header = ["Date", "Open", "High", "Low", "Close", "Volume"]
    rows = sheet_rows(200_000)
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Prices")
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    xlsx, csv, wide = root / "rows200k.xlsx", root / "rows200k.csv", root / "cols5000.csv"
    book.save(xlsx)
    csv.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    wide.write_text(
        "\n".join(",".join(str((r * c) % 1000) for c in range(5_000)) for r in range(300)) + "\n",
        encoding="utf-8",
    )
    return {
        "200,000-row .xlsx": [xlsx],
        "the same rows as .csv": [csv],
        "5,000-column .csv (300 rows)": [wide],
    }


def _inputs(root: Path, quick: bool) -> dict[str, list[Path]]:
    from tests.support.documents import epub, single_line

    big, bomb = root / "big.txt", root / "bomb" / "bomb.epub"
    bomb.parent.mkdir()
    single_line(big, 50_000_000)
    epub(
        bomb,
        {f"c{i}": "All work and no play makes Jack a dull boy. " * 2_500_000 for i in range(8)},
    )
    (root / "bomb" / "good.md").write_text(GOOD, encoding="utf-8")
    good = root / "good.md"
    good.write_text(GOOD, encoding="utf-8")
    cases = {
        "50 MB single-line .txt": [big],
        "zip-bomb .epub (2.6 MB -> 880 MB)": [bomb],
        "zip-bomb .epub + a good .md in its folder": [bomb.parent],
        "a good .md alone (floor)": [good],
        **_sheets(root),
        "30,000 x 200 px .png, one line of text (OCR)": [wide_png(root / "w30k.png", 30_000)],
        "60,000 x 200 px .png, one line of text (OCR)": [wide_png(root / "w60k.png", 60_000)],
    }
    if not quick:
        single_line(root / "two.txt", 2_000_000)
        cases["2 MB single-line .txt (within the limits: indexed)"] = [root / "two.txt"]
    return cases


def _ingest(paths: list[Path]) -> tuple[float, float, dict]:
    with temp_home("lcbench-hostile-") as home:
        env = dict(os.environ, LOCALCRAG_HOME=str(home))
        p = run_process(
            [sys.executable, "-m", "localcrag", "ingest", "--json", *map(str, paths)], env=env
        )
    try:
        report = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError(f"ingest exited {p.rc}: {p.stderr[-500:]}") from None
    return p.wall, p.rss_mb, report


def run(quick: bool) -> Section:
    sec = Section("9. Hostile files (peak RSS, seconds)")
    rows, got = [], {}
    with tempfile.TemporaryDirectory(prefix="lcbench-hostile-in-") as d:
        log("hostile: building the inputs (50 MB text, 880 MB-inflating EPUB, sheets, PNGs)")
        for label, paths in _inputs(Path(d), quick).items():
            log(f"hostile: ingest {label}")
            wall, rss, report = _ingest(paths)
            got[label] = (wall, rss, report)
            outcome = "; ".join(
                e["error"].split(": ", 1)[-1].split(" (skipped")[0] for e in report["failed"]
            )
            rows.append(
                Row(
                    label,
                    {
                        "seconds": fmt(wall, 1),
                        "peak RSS MB": fmt(rss, 0),
                        "indexed": len(report["indexed"]),
                        "chunks": report["chunks"],
                        "refused with": outcome or "—",
                    },
                )
            )
        log("hostile: bounded reads (ruled grid, a 60,000-space line, bad model servers)")
        reads = hostile_reads.cases(Path(d))
    sec.tables.append(
        ("`localcrag ingest --json PATH` in a new process, fresh index, default limits", rows)
    )
    sec.tables.append(
        (
            "bounded reads: `ingest` or `ask` in a new process (bench/hostile_reads.py)",
            [
                Row(label, {"seconds": fmt(w, 1), "peak RSS MB": fmt(r, 0), "outcome": what})
                for label, (w, r, what) in reads.items()
            ],
        )
    )
    for label, (w, r, what) in reads.items():
        sec.targets.append(
            (
                f"{label}: peak RSS <= 600 MB, < 60 s",
                f"{r:,.0f} MB, {w:.1f} s ({what.split(';')[0]})",
                r <= 600 and w < 60 and not what.startswith("exit 1"),
            )
        )
    for label, rss_max in (
        ("50 MB single-line .txt", 600),
        ("zip-bomb .epub (2.6 MB -> 880 MB)", 300),
        ("200,000-row .xlsx", 600),
        ("5,000-column .csv (300 rows)", 600),
        ("60,000 x 200 px .png, one line of text (OCR)", 600),
    ):
        wall, rss, report = got[label]
        done = bool(report["indexed"] or report["failed"])
        sec.targets.append(
            (
                f"ingest of a {label}: peak RSS <= {rss_max} MB, < 60 s, chunks or a one-line error",
                f"{rss:,.0f} MB, {wall:.1f} s",
                rss <= rss_max and wall < 60 and done,
            )
        )
    wall, rss, report = got["zip-bomb .epub + a good .md in its folder"]
    sec.targets.append(
        (
            "the good file beside the bomb is indexed",
            f"indexed {len(report['indexed'])}",
            len(report["indexed"]) == 1,
        )
    )
    sec.notes.append(
        "Peak RSS of the good file alone is the floor of any ingest that embeds (the "
        "embedder and LanceDB); the bomb and the 50 MB file add nothing to it: both are "
        "refused before they are read (zip central directory; file size vs max_file_chars)."
    )
    sec.data = {k: {"seconds": v[0], "rss_mb": v[1], "report": v[2]} for k, v in got.items()}
    return sec
