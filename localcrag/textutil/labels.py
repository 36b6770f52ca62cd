"""Source labels: the one way a file and page are written (prompt, citations, CLI, TUI).

The answer shaper recognises labels the model echoes with :func:`label_pattern`, which is
derived from :func:`source_label`, so a change of format here cannot silently break it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath


def page_label(page: int, last: int | None = None) -> str:
    """ "p. 5"; "pp. 5–6" for a passage that runs over a page break."""
    return f"pp. {page}\u2013{last}" if last and last != page else f"p. {page}"


# unit -> (singular, plural) as written in a locator ("slide 3", "rows 2–9")
_UNITS = {"slide": ("slide", "slides"), "row": ("row", "rows"), "table": ("table", "tables")}
# how a document's own line starts (ingest/about): what the document is, by whom, when
ABOUT = "About this document:"
# a passage's heading as stored: what its document is, this mark, then its section's
# heading ("State of Iowa Voter Registration Totals; 7/5/2022 › Polk County")
DOCUMENT = " › "
SECTION = "section"  # body text of a file without printed pages (.docx); its scope: the heading
_SECTION = 'section "{}"'  # how a section is written: section "Travel budget"
_AFTER = "after table {}"  # a section without a heading, placed by the table before it


def locator(parts: Sequence[tuple[str, int, str]]) -> str | None:
    """Where a passage is, from the (unit, number, scope) of each page it spans, in order.

    Plain pages give None (the page number says it); PDF pages read by OCR give
    "p. 4 (OCR)" / "pp. 3–4 (partly OCR)"; other units are grouped by unit and scope:
    "slides 3–4", "sheet Sales, rows 2–9", "table 2" (plain paragraphs around a table add
    nothing). Body text of a file without pages (unit "section", scope its heading) is
    'section "Travel budget"'; before the first heading, its number (the tables before it) places
    it: "after table 2", or None at the start (number 0: the file name alone, never a page a
    .docx does not have); beside a table it is plain."""
    if parts and all(u == SECTION for u, _, _ in parts):
        if parts[0][2]:
            return _SECTION.format(parts[0][2])
        return _AFTER.format(parts[0][1]) if parts[0][1] else None
    units = [u for u, _, _ in parts if u != SECTION]
    if not any(units):
        return None
    if "ocr" in units:
        tag = "(OCR)" if all(u == "ocr" for u in units) else "(partly OCR)"
        return f"{page_label(parts[0][1], parts[-1][1])} {tag}"
    groups: list[list] = []
    for unit, number, scope in parts:
        if not unit or unit == SECTION:
            continue
        if groups and groups[-1][0] == (unit, scope):
            groups[-1][2] = number
        else:
            groups.append([(unit, scope), number, number])
    out = []
    for (unit, scope), first, last in groups:
        one, many = _UNITS.get(unit, (unit, unit))
        where = f"{one} {first}" if first == last else f"{many} {first}\u2013{last}"
        out.append(f"{scope}, {where}" if scope else where)
    return "; ".join(out)


def source_label(
    source: str,
    page: int | None = None,
    *,
    url: str | None = None,
    last_page: int | None = None,
    page_first: bool = False,
    locator: str | None = None,
) -> str:
    """ "report.pdf, p. 5"; the URL for web sources; ``page_first`` ("p. 5 report.pdf") where a
    narrow column may cut the name. ``locator`` ("slide 3", "p. 4 (OCR)") replaces the page."""
    if url:
        return url
    if source.startswith(("http://", "https://")):
        return source
    name = PurePath(source).name or source or "unknown"
    if not page and not locator:
        return name
    pages = locator or page_label(page or 0, last_page)
    return f"{pages} {name}" if page_first else f"{name}, {pages}"


def split_heading(heading: str | None) -> tuple[str, str | None]:
    """A stored heading's two parts: what its document is ("" when the heading carries
    none) and its section's heading (None when there is none)."""
    document, mark, section = (heading or "").partition(DOCUMENT.rstrip())
    if not mark:
        return "", heading or None
    return document.strip(), section.strip() or None


def document_named(source: str, heading: str | None) -> str | None:
    """What a passage's document is (its heading's part before ``DOCUMENT``, the title
    first), when the file's name does not say it: "12s0324.pdf" is "Arrests by Sex and
    Age", where "2023-Registered-Voter-Count.pdf" says "2023 Voter Registration Totals"."""
    title = split_heading(heading)[0].split("; ")[0]
    stem = re.sub(r"([a-z])([A-Z])", r"\1 \2", PurePath(source).stem).lower()
    said = {w[:5] for w in re.findall(r"[a-z]{3,}", stem)}
    if not title or said & {w[:5] for w in re.findall(r"[a-z]{3,}", title.lower())}:
        return None
    return title


def label_pattern(name: str = r"[^()\n]{1,140}") -> str:
    """A regex (no groups) for a file label as :func:`source_label` writes it, with ``name``
    as the pattern for the file name and any page number or :func:`locator`."""
    sample = re.escape(source_label("/NAMEX", locator="LOCX")).replace("NAMEX", name)
    page = re.escape(page_label(12345, 12346)).replace("12345", r"\d+").replace("12346", r"\d+")
    one = re.escape(page_label(12345)).replace("12345", r"\d+")
    units = "|".join(w for pair in _UNITS.values() for w in pair)
    unit = rf"(?:[^()\n;]{{1,160}}, )?(?:{units}) \d+(?:\u2013\d+)?"  # scope: "sheet Output, ANOVA"
    section = re.escape(_SECTION.format("TITLEX")).replace("TITLEX", r'[^"\n]{1,200}')
    after = re.escape(_AFTER.format(12345)).replace("12345", r"\d+")
    where = rf"(?:(?:{page}|{one})(?: \((?:partly )?OCR\))?|{unit}(?:; {unit})*|{section}|{after})"
    return sample.replace("LOCX", where)


def style_label(style: str, model: str, web: bool = False) -> str:
    """What the answer is, in the user's words (shown above it in the app and by `ask`)."""
    if style == "extractive":
        return "Quoted from your documents" if not web else "Quoted from the sources"
    where = "the sources" if web else "your documents"
    return f"Written by {model or 'the model'}, checked against {where}"
