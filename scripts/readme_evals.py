"""Re-run README.md's eval commands and store their results in docs/results/NAME.json.

``python scripts/readme_evals.py [--only val,squad-retrieval] [--runs N]`` (``make readme``
runs it, then re-renders README.md with cog). Each command in ``readme_tables.EVALS`` runs
``--runs`` times (default: its own count, 2: eval figures state whether two runs agree),
one after another, as ``localcrag eval ARGS --out DIR`` with a private ``LOCALCRAG_HOME``
(a fresh temporary one unless the variable is set), and the stored file keeps, per run,
the command, commit, start and end time, load average and machine, and results.json
without its per-question items (``report.md`` and the charts stay in the run's folder).

``--import NAME DIR [DIR ...]`` stores runs made by hand instead: each DIR holds the
``out/results.json`` of one ``--out`` and the files this script writes beside it
(``command``, ``commit``, ``started``, ``ended``, ``load_start``, ``load_end``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from readme_tables import EVALS, REPO, RESULTS, Eval  # noqa: E402

DROP = ("items",)  # per-question rows: in the run's report.md, too long for the repo


def trimmed(results: dict[str, Any]) -> dict[str, Any]:
    """results.json without per-question rows, raw scores or this machine's paths."""
    out = {k: v for k, v in results.items() if k not in DROP}
    if isinstance(out.get("evaluator"), dict):
        out["evaluator"] = {k: v for k, v in out["evaluator"].items() if k != "scores"}
    if isinstance(out.get("index"), dict):
        out["index"] = {k: v for k, v in out["index"].items() if k != "dir"}
    return out


def _read(d: Path, name: str) -> str:
    p = d / name
    return p.read_text(encoding="utf-8").strip() if p.exists() else ""


def machine() -> str:
    return f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), " + (
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def collect(d: Path) -> dict[str, Any]:
    """One stored run from a run folder (see the module docstring)."""
    res = d / "out" / "results.json"
    if not res.exists():
        raise SystemExit(f"{res}: no results.json (did the eval fail? see {d / 'stderr'})")
    load = [float(x) for x in _read(d, "load_start").split()]
    return {
        "command": _read(d, "command"),
        "commit": _read(d, "commit"),
        "started": _read(d, "started"),
        "ended": _read(d, "ended"),
        "load_start": load,
        "load_end": [float(x) for x in _read(d, "load_end").split()],
        "machine": _read(d, "machine") or machine(),
        "results": trimmed(json.loads(res.read_text(encoding="utf-8"))),
    }


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_once(ev: Eval, d: Path, home: Path) -> dict[str, Any]:
    """``localcrag eval ARGS --out d/out``; its metadata beside it; the stored run."""
    d.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    ).stdout.strip()
    changed = subprocess.run(  # the package measured differs from the commit: say so
        ["git", "status", "--porcelain", "--", "localcrag"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    commit += "+dirty" if changed else ""
    meta = {"command": ev.command, "commit": commit, "machine": machine()}
    meta |= {"started": _stamp(), "load_start": _load()}
    for k, v in meta.items():
        (d / k).write_text(v + "\n", encoding="utf-8")
    env = dict(os.environ, LOCALCRAG_HOME=str(home), PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "localcrag", "eval", *ev.args, "--out", str(d / "out")]
    print(f"{ev.name}: {ev.command}", flush=True)
    with (d / "stdout").open("w") as out, (d / "stderr").open("w") as err:
        rc = subprocess.run(cmd, cwd=REPO, env=env, stdout=out, stderr=err, check=False).returncode
    (d / "ended").write_text(_stamp() + "\n", encoding="utf-8")
    (d / "load_end").write_text(_load() + "\n", encoding="utf-8")
    if rc != 0:
        raise SystemExit(f"{ev.command}: exit {rc}; its output: {d / 'stderr'}")
    return collect(d)


def store(ev_name: str, command: str, runs: list[dict[str, Any]], root: Path = RESULTS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{ev_name}.json"
    doc = {"name": ev_name, "command": command, "runs": runs}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/readme_evals.py", description=__doc__)
    names = [e.name for e in EVALS]
    p.add_argument("--only", default="", help=f"comma-separated subset of {names}")
    p.add_argument("--runs", type=int, default=0, help="runs per command (default: its own)")
    p.add_argument("--work", type=Path, help="keep the run folders here (default: a temp dir)")
    p.add_argument("--import", dest="imported", nargs="+", metavar=("NAME", "DIR"))
    args = p.parse_args(argv)
    by_name = {e.name: e for e in EVALS}
    if args.imported:
        name, *dirs = args.imported
        if name not in by_name or not dirs:
            p.error(f"--import NAME DIR...: NAME is one of {names}")
        runs = [collect(Path(d)) for d in dirs]
        print(store(name, by_name[name].command, runs))
        return 0
    only = [s.strip() for s in args.only.split(",") if s.strip()] or names
    if bad := [s for s in only if s not in by_name]:
        p.error(f"unknown eval(s): {', '.join(bad)}; known: {', '.join(names)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="readme-evals-"))
    home = Path(os.environ.get("LOCALCRAG_HOME") or work / "home")
    for name in only:  # one at a time: they share the cores
        ev = by_name[name]
        if ev.prepare:
            cmd = [sys.executable if ev.prepare[0] == "python" else ev.prepare[0], *ev.prepare[1:]]
            subprocess.run(cmd, cwd=REPO, check=True)
        runs = [run_once(ev, work / f"{name}-{i + 1}", home) for i in range(args.runs or ev.runs)]
        print(store(name, ev.command, runs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
