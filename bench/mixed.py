"""Section 15: ingest of a 14-file mixed folder (target: peak RSS <= 600 MB and a
progress line at least every 5 s).

The folder is the mix of a new user's first folder, built in code so anyone can re-run it:
seven .docx statistics guides (prose and an Excel-style output table each), two .xlsx
workbooks (a 3,000-row data table with Analysis ToolPak regression output beside it), two
stock-price CSVs (2,500 and 4,000 daily rows), a Markdown meeting note, a French note and a
PNG of a printed paragraph (read by OCR). ``localcrag ingest`` runs on it in a new process
with a fresh home and stderr not a terminal (a log), so it prints its progress lines; each
line is timestamped as it arrives, and the longest silence is measured from the start to
the end of the run. Peak RSS is the child's own ``ru_maxrss`` (``bench.run_process``'s
wrapper).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import _WRAPPER, ROOT, Row, Section, fmt, log, temp_home

RSS_MB = 600
SILENCE_S = 5.0
_TOPICS = [
    "one-way ANOVA",
    "linear regression",
    "two-sample t-test",
    "chi-square test",
    "correlation",
    "paired t-test",
    "descriptive statistics",
]


def _guide(path: Path, i: int, rng: random.Random) -> None:
    import docx

    topic = _TOPICS[i]
    d = docx.Document()
    d.add_heading(f"A guide to the {topic} in Excel", 1)
    for k in range(40):
        d.add_paragraph(
            f"Step {k + 1}. For the {topic}, select the input range, tick Labels in first row "
            f"and choose an output range; Excel writes the table of results beside the data. "
            f"The p-value of {rng.random():.4f} is compared with the significance level 0.05."
        )
    table = d.add_table(rows=1, cols=6)
    for c, h in zip(table.rows[0].cells, ["", "df", "SS", "MS", "F", "P-value"]):
        c.text = h
    for label in ("Between Groups", "Within Groups", "Total"):
        cells = table.add_row().cells
        cells[0].text = label
        for c in cells[1:]:
            c.text = f"{rng.uniform(1, 500):.3f}"
    d.save(str(path))


def _workbook(path: Path, rng: random.Random) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append(["Salesman", "Number of Customers", "Net Sales"])
    for i in range(3000):
        x = rng.randint(50, 500)
        sheet.append([f"Salesman {i + 1}", x, round(20 + 0.4 * x + rng.gauss(0, 9), 2)])
    out: list[list[object]] = [
        ["SUMMARY OUTPUT"],
        [],
        ["Regression Statistics"],
        ["Multiple R", 0.95],
        ["R Square", 0.91],
        ["Observations", 3000],
        [],
        ["ANOVA"],
        ["", "df", "SS", "MS", "F", "Significance F"],
        ["Regression", 1, 64281.3, 64281.3, 191.22, 4.8e-11],
        ["Residual", 2998, 6051.2, 2.02],
    ]
    for r, row in enumerate(out, start=1):
        for c, v in enumerate(row, start=5):
            sheet.cell(r, c, v)
    book.save(path)


def _prices(path: Path, days: int, rng: random.Random) -> None:
    lines = ["Date,Open,High,Low,Close,Volume"]
    price, day = 20.0, dt.date(2010, 6, 29)
    for _ in range(days):
        o = price
        price = max(1.0, price * (1 + rng.gauss(0, 0.02)))
        hi, lo = max(o, price) * 1.01, min(o, price) * 0.99
        lines.append(f"{day},{o:.2f},{hi:.2f},{lo:.2f},{price:.2f},{rng.randint(10**5, 10**7)}")
        day += dt.timedelta(days=1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _png(path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (1400, 420), "white")
    draw = ImageDraw.Draw(img)
    try:
        font: Any = ImageFont.truetype("DejaVuSans.ttf", 30)
    except OSError:
        font = ImageFont.load_default(size=30)
    text = [
        "Minutes of the budget review, 14 March 2024.",
        "The travel budget of 48,000 euros was approved by Maria Okafor.",
        "The next review is on Thursday 21 March at 10:00 in room B2.",
        "Actions: Priya sends the revised forecast by Friday.",
    ]
    for i, line in enumerate(text):
        draw.text((40, 40 + 90 * i), line, fill="black", font=font)
    img.save(path)


def folder(root: Path, seed: int = 0) -> Path:
    """The 14 files: 7 .docx, 2 .xlsx, 2 .csv, 2 .md, 1 .png."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(7):
        _guide(root / f"guide{i + 1}.docx", i, rng)
    _workbook(root / "sales.xlsx", rng)
    _workbook(root / "sales2023.xlsx", rng)
    _prices(root / "TSLA.csv", 2500, rng)
    _prices(root / "NSE-TATAGLOBAL11.csv", 4000, rng)
    (root / "meeting.md").write_text(
        "# Stats team meeting notes (2024-03-12)\n\nChaired by Dana Lee. The team agreed to "
        "report the two-tail p-value beside every t Stat, and to keep 20 observations per "
        "group in the pilot.\n",
        encoding="utf-8",
    )
    (root / "note_fr.md").write_text(
        "# Note de service\n\nLa réunion budgétaire aura lieu jeudi à 10 heures. Le budget de "
        "déplacement de 48 000 euros a été approuvé.\n",
        encoding="utf-8",
    )
    _png(root / "minutes.png")
    return root


def _ingest(docs: Path) -> tuple[float, float, float, int, int]:
    """(wall s, peak RSS MB, longest silence s, progress lines, exit status) of one ingest."""
    cmd = [sys.executable, "-m", "localcrag", "ingest", str(docs)]
    with temp_home("lcbench-mixed-") as home:
        env = dict(os.environ, LOCALCRAG_HOME=str(home), PYTHONUNBUFFERED="1")
        start = time.perf_counter()
        p = subprocess.Popen(
            [sys.executable, "-c", _WRAPPER, *cmd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
            text=True,
        )
        assert p.stderr is not None
        stamps, rss_kb = [start], float("nan")
        lines = 0
        for line in p.stderr:
            if line.startswith("BENCH_CHILD "):
                rss_kb = float(line.split()[2])
                continue
            if line.strip():
                stamps.append(time.perf_counter())
                lines += 1
        rc = p.wait()
        stamps.append(time.perf_counter())
    silence = max(b - a for a, b in zip(stamps, stamps[1:]))
    return stamps[-1] - start, rss_kb / 1024, silence, lines, rc


def run(quick: bool) -> Section:
    sec = Section("15. Mixed folder ingest")
    with tempfile.TemporaryDirectory(prefix="lcbench-mixed-") as d:
        docs = folder(Path(d) / "docs")
        n = len(list(docs.iterdir()))
        size = sum(f.stat().st_size for f in docs.iterdir())
        log(f"mixed: ingesting {n} files ({size / 1e6:.1f} MB)")
        wall, rss, silence, lines, rc = _ingest(docs)
    if rc != 0:
        raise RuntimeError(f"ingest of the mixed folder exited {rc}")
    sec.tables.append(
        (
            f"`localcrag ingest` of {n} files ({size / 1e6:.1f} MB: 7 .docx, 2 .xlsx, 2 .csv, "
            "2 .md, 1 .png), fresh home, stderr a log",
            [
                Row(
                    "mixed folder",
                    {
                        "wall s": fmt(wall, 1),
                        "peak RSS MB": fmt(rss, 0),
                        "progress lines": lines,
                        "longest silence s": fmt(silence, 1),
                    },
                )
            ],
        )
    )
    sec.targets.append(
        (f"mixed-folder ingest: peak RSS ≤ {RSS_MB} MB", f"{rss:,.0f} MB", rss <= RSS_MB)
    )
    sec.targets.append(
        (
            f"mixed-folder ingest: a progress line at least every {SILENCE_S:.0f} s",
            f"longest silence {silence:.1f} s ({lines} lines)",
            silence <= SILENCE_S,
        )
    )
    sec.data.update(
        {
            "files": n,
            "bytes": size,
            "wall_s": wall,
            "peak_rss_mb": rss,
            "longest_silence_s": silence,
            "progress_lines": lines,
            "target_names": ["mixed-ingest-peak-rss", "mixed-ingest-progress-every-5s"],
        }
    )
    return sec
