"""Questions about documents as wholes: which document a question names, and "what is it
about?" answered from its overview (ingest/overview.py).

A question names a document by its file's name or by what the document says it is (its
title, authors, date): "What is the 2023 voter registration count about?", "Summarise
ClassCodes.pdf", "In the FEC results, how many votes ...". Every content word of the name
must be in one document's file name or title (generic words such as "report" or "file"
aside); when several documents match, none is chosen and the answer says which matched.
Two uses:

* ``about_question``: "what is X about?", "summarise X", "give an overview of X", "what
  does X cover?": the answer is X's overview, quoted and cited (never a guess from five
  passages); "this document" is the scope's one document.
* ``named_scope``: "In the 2019 report, ...", "..., according to the FEC results?": the
  question is asked within that document, and the run says so (``Scope.named_in_question``)
  with the way to ask everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from localcrag.ingest.overview import Overview
from localcrag.textutil import shown, stems
from localcrag.types import Citation, Evidence

# words that say "a document" without saying which (a name is what is left)
GENERIC = frozenset(
    stems(
        "document documents file files report reports paper papers pdf doc docx deck slides "
        "slide presentation sheet spreadsheet workbook csv table tables text manual guide page "
        "pages article book chapter notes note this that it its"
    )
)
_DOC_WORD = re.compile(
    r"\b(?:documents?|files?|reports?|papers?|pdf|docx?|deck|slides|presentation|"
    r"spreadsheet|workbook|sheet|manual|guide|article|book|notes|datasheet|codebook)\b|\.\w{2,5}\b",
    re.I,
)
_ABOUT = re.compile(
    r"^(?:what(?:'s|\s+is|\s+are)\s+(?P<a>.+?)\s+about"
    r"|(?:please\s+)?summari[sz]e\s+(?P<b>.+?)"
    r"|(?:give\s+(?:me\s+)?)?(?:a\s+|an\s+)?(?:short\s+|brief\s+)?(?:overview|summary)\s+of\s+(?P<c>.+?)"
    r"|what\s+does\s+(?P<d>.+?)\s+(?:cover|describe|discuss|contain))\s*[?.!]*$",
    re.I,
)
# "In the 2019 report, how much ...?" / "How much ..., according to the 2019 report?"
_LEADING = re.compile(r"^(?:in|from|according\s+to)\s+(?P<x>[^,]{2,80}?),\s*(?P<q>.+)$", re.I)
_TRAILING = re.compile(
    r"^(?P<q>.+?),?\s+(?:in|from|according\s+to)\s+(?P<x>[^,]{2,80}?)\s*(?P<end>[?.!]*)$", re.I
)
SHOWN_HEADINGS = 8  # section headings an overview answer lists


@dataclass(frozen=True)
class Named:
    """The documents a phrase of the question names: one, or several it could mean."""

    phrase: str
    sources: tuple[str, ...]


def about_question(question: str) -> str | None:
    """The document phrase of a "what is X about?" question ("" for "this document" or
    "it"), or None when the question asks something else."""
    m = _ABOUT.match(" ".join(question.split()))
    if not m:
        return None
    phrase = next(g for g in m.groups() if g is not None)
    return "" if not _name_words(phrase) else phrase


def _name_words(phrase: str) -> set[str]:
    return {s for s in stems(_split_name(phrase)) if s not in GENERIC}


def _split_name(name: str) -> str:
    """A file name's words: "2023-Registered-Voter-Count" -> "2023 Registered Voter Count",
    "USFinanceIndustry" -> "US Finance Industry"."""
    name = re.sub(r"([a-z])([A-Z])|([A-Z])([A-Z][a-z])", r"\1\3 \2\4", name)
    name = re.sub(r"([A-Za-z])(\d)|(\d)([A-Za-z])", r"\1\3 \2\4", name)
    return re.sub(r"[_\-.]+", " ", name)


def documents_named(phrase: str, documents: Sequence[tuple[str, str]], whole: bool = True) -> Named:
    """The documents (source, what it says it is) that ``phrase`` names: its file name as
    written, else every content word of it in the file's name or title. ``whole``: the
    phrase is all name (False: it must also say it is a document, or be a file name, as in
    "... in the 2019 report")."""
    text = " ".join(phrase.split()).strip(" ?.!\"'\u201c\u201d")
    base = text.lower().removeprefix("the ")
    exact = tuple(s for s, _ in documents if PurePath(s).name.lower() == base)
    if exact:
        return Named(text, exact)
    if not whole and not _DOC_WORD.search(text):
        return Named(text, ())
    wanted = _name_words(text)
    if not wanted:
        return Named(text, ())
    found = tuple(
        s
        for s, title in documents
        if wanted <= set(stems(_split_name(PurePath(s).stem) + " " + title))
    )
    return Named(text, found)


def named_scope(
    question: str, documents: Callable[[], Sequence[tuple[str, str]]]
) -> tuple[str, Named] | None:
    """(the question without the phrase, the documents it names) when the question says
    where to look, at its start or end, and the phrase names exactly one document
    (``documents`` is called only when a phrase says it is a document or a file)."""
    q = " ".join(question.split())
    for pattern in (_LEADING, _TRAILING):
        m = pattern.match(q)
        if not m or not _DOC_WORD.search(m.group("x")):
            continue
        named = documents_named(m.group("x"), documents(), whole=False)
        if len(named.sources) == 1:
            rest = m.group("q").strip()
            if pattern is _TRAILING:
                rest += m.group("end") or "?"
            return rest[:1].upper() + rest[1:], named
    return None


def overview_answer(overview: Overview, named: str) -> tuple[str, list[Evidence], str]:
    """The answer to "what is X about?" from X's overview: what the document says it is, its
    sections or its tables' columns, and its central sentences quoted with [n]; the evidence
    they cite; and the reason the decision states."""
    label = shown(PurePath(overview.source).name)
    lines = [f"**{label}**" + (f": {overview.about}." if overview.about else ".")]
    size = f"{overview.chunks} passages" + (
        f", {overview.pages} pages" if overview.pages > 1 else ""
    )
    lines[0] += f" ({size})"
    if overview.headings:
        heads = list(overview.headings[:SHOWN_HEADINGS])
        more = len(overview.headings) - len(heads)
        lines.append("Sections: " + "; ".join(heads) + (f"; and {more} more." if more else "."))
    evidence: list[Evidence] = []
    for cols in overview.columns:
        n = len(evidence) + 1
        evidence.append(
            Evidence(
                n,
                cols.text,
                overview.source,
                cols.page,
                chunk_id=cols.chunk_id,
                locator=cols.locator,
            )
        )
        lines.append(f"A table with the columns: {cols.text} [{n}].")
    if overview.sentences:
        quoted = [
            f"From its {overview.summary.lower()}:"
            if overview.summary
            else "Its most central sentences:"
        ]
        for q in overview.sentences:
            n = len(evidence) + 1
            evidence.append(
                Evidence(n, q.text, overview.source, q.page, chunk_id=q.chunk_id, locator=q.locator)
            )
            quoted.append(f"- \u201c{q.text}\u201d [{n}]")
        lines.append("\n".join(quoted))
    reason = (
        f'the question asks what a document is about; "{named}" names {label}: its overview '
        "(what it says it is, its sections, its "
        + ("author's summary" if overview.summary else "most central sentences")
        + ", quoted)"
    )
    return "\n\n".join(lines), evidence, reason  # paragraphs: Markdown keeps them apart


def citations_of(evidence: Sequence[Evidence], about: str) -> tuple[Citation, ...]:
    return tuple(Citation(e.n, e.source, e.page, None, e.locator, about or None) for e in evidence)


def matched_line(named: Named) -> str:
    """The answer when a phrase names several documents: which, and how to choose."""
    names = ", ".join(shown(PurePath(s).name) for s in named.sources[:8])
    more = f" and {len(named.sources) - 8} more" if len(named.sources) > 8 else ""
    return (
        f'"{named.phrase}" could be any of {len(named.sources)} documents: {names}{more}. '
        "Name one (its file name), or ask within one (--in FILE, or q in the Library)."
    )


def unnamed_line(scoped: int) -> str:
    """The answer to "what is this document about?" when no one document is meant."""
    return (
        "Which document? Name it (its file name or title), or ask within one (--in FILE, "
        "or q in the Library)"
        + (f": this question is asked within {scoped} documents." if scoped else ".")
    )
