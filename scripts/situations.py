"""Re-run a new user's situations on bench section 15's 14-file folder.

The folder (bench/mixed.py ``folder``: seven .docx guides, two .xlsx workbooks with
regression output beside the data, two price CSVs, a meeting note, a French note and a
PNG read by OCR; plus a 506-row CSV with a description laid out as scikit-learn's Boston
DESCR) is built from a seed, so each question's right answer is known from
how the file was written. Each question is asked as a new user would, with
``localcrag ask --offline --json`` and the default settings, into a fresh
``LOCALCRAG_HOME``; an answer is *right* when it holds the expected text, *refused* when
CRAG says the documents do not answer, and *wrong* otherwise. A question whose right
answer the documents do not hold must be refused; any answer to it counts as wrong. An
answer holding the expected text but presenting another value in bold is wrong.

    python scripts/situations.py            # prints a table, exits 1 if any answer is wrong
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _close(csv: Path, day: str) -> str:
    for line in csv.read_text(encoding="utf-8").splitlines()[1:]:
        cells = line.split(",")
        if cells[0] == day:
            return cells[4]
    raise KeyError(day)


def _boston(docs: Path) -> None:
    """A 506-row CSV and a description in the layout of scikit-learn's Boston DESCR (the
    question "What does CRIM mean?"); the values are made up, the attribute list is DESCR's."""
    names = "CRIM ZN INDUS CHAS NOX RM AGE DIS RAD TAX PTRATIO B LSTAT MEDV".split()
    rows = (",".join(f"{(i * 7 + j) % 97 / 9:.3f}" for j in range(14)) for i in range(506))
    (docs / "boston.csv").write_text(",".join(names) + "\n" + "\n".join(rows) + "\n")
    attrs = {
        "CRIM": "per capita crime rate by town",
        "ZN": "proportion of residential land zoned for lots over 25,000 sq.ft.",
        "PTRATIO": "pupil-teacher ratio by town",
        "LSTAT": "% lower status of the population",
        "MEDV": "Median value of owner-occupied homes in $1000's",
    }
    (docs / "boston_description.txt").write_text(
        "Boston house prices dataset\n---------------------------\n\n"
        "    :Number of Instances: 506\n\n    :Attribute Information (in order):\n"
        + "".join(f"        - {k:<8} {v}\n" for k, v in attrs.items())
    )


def situations(docs: Path) -> list[tuple[str, str | None]]:
    """(question, text a right answer holds; None: the documents do not say)."""
    tsla, tata = docs / "TSLA.csv", docs / "NSE-TATAGLOBAL11.csv"
    return [
        ("What was the TSLA close on 2010-07-02?", _close(tsla, "2010-07-02")),
        ("What was the TATAGLOBAL close on 2018-09-28?", _close(tata, "2018-09-28")),
        # "Tesla" is in no file (TSLA is a ticker): both files' rows of that date may be quoted,
        # TSLA.csv's holding the close, but no value may be presented as the answer
        ("What was Tesla's closing price on 2010-06-29?", _close(tsla, "2010-06-29")),
        ("What is the R Square of the regression in sales.xlsx?", "0.91"),
        ("What is the Significance F in sales2023.xlsx?", "4.8e-11"),
        ("Who chaired the stats team meeting?", "Dana Lee"),
        ("How many observations per group are kept in the pilot?", "20"),
        ("Who approved the travel budget?", "Maria Okafor"),  # the PNG, through OCR
        ("When is the next budget review?", "21 March"),
        ("What will Priya send by Friday?", "revised forecast"),
        ("What was Tesla's price on Jan 1 2005?", None),
        ("Who is the CEO of the company in the sales workbook?", None),
        ("What does CRIM mean?", "per capita crime rate by town"),
        ("What does PTRATIO stand for?", "pupil-teacher ratio"),
    ]


def main() -> int:
    from bench.mixed import folder

    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="lc-situations-") as d:
        docs = folder(Path(d) / "docs")
        _boston(docs)
        env["LOCALCRAG_HOME"] = str(Path(d) / "home")
        run = [sys.executable, "-m", "localcrag"]
        subprocess.run([*run, "ingest", "--quiet", str(docs)], env=env, check=True, cwd=ROOT)
        wrong = 0
        print("| question | expected | outcome | answer |\n|---|---|---|---|")
        for question, expected in situations(docs):
            out = subprocess.run(
                [*run, "ask", "--offline", "--json", question],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(out.stdout)
            answer = " ".join(got["answer"].split())
            if got["refused"]:
                outcome = "refused" + (" (right)" if expected is None else " (wrong)")
            elif expected is not None and expected.lower() in answer.lower():
                bold = [p for p in answer.split("**")[1::2]]
                outcome = "right" if not bold or any(expected in b for b in bold) else "WRONG"
            else:
                outcome = "WRONG"
            wrong += outcome in ("WRONG", "refused (wrong)")
            print(
                f"| {question} | {expected or '(not in the files)'} | {outcome} | {answer[:160]} |"
            )
        print(f"\n{wrong} wrong of {len(situations(docs))}")
        return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
