"""A document's overview: what it is, its sections, and the few sentences most central to it.

"What is this document about?" has no answer in the top five passages of a search: a
document is not any one of its passages. So ingest writes, per document, an extractive
overview from what it already has: what the document says it is (title, authors, date:
ingest/about, carried in every chunk's heading), its section headings in order, and its
central sentences, quoted verbatim with their chunk, page and locator, so an answer can
cite them. When the document has a summary of its author's ("Abstract", "Executive
summary", "Summary"), its opening sentences are the overview's; otherwise the chunks whose
vectors lie nearest the document's mean vector (the vectors ingest just made: no model
runs here) each give their sentence whose words recur most across the document.

``<table>.overviews.json`` beside a local table (a checksummed sidecar, like the document
list) keeps one per document with the content hash it was made from; an overview whose
hash is not the indexed one is never read (the document changed, or was removed).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from localcrag.ingest import sidecar
from localcrag.ingest.tables import HEADER_LINE, ROW_LINE
from localcrag.textutil import ends_sentence, sentences, stems, words
from localcrag.textutil.labels import ABOUT, split_heading
from localcrag.types import Chunk

SENTENCES = 3  # central sentences an overview quotes
SUMMARY_SENTENCES, SUMMARY_WORDS = 8, 220  # of an author's summary it quotes
HEADINGS = 12  # section headings it lists, in order
TABLES = 3  # tables whose column names it lists
MIN_WORDS, MAX_WORDS = 6, 60  # a sentence shorter is a label, longer a run-on
# a summary the author wrote, as its section is headed or its paragraph begins
_SUMMARY_HEAD = re.compile(r"(?:\d+\.?\s*)?(?:abstract|executive summary|summary)[\s.:]*", re.I)
_RECORD = re.compile(r"(?:[^:;\n]{1,60}: [^;\n]*; ){2}")  # "a: 1; b: 2; c: 3": cells
_LINK = re.compile(r"https?://|\]\(|www\.")
_SUMMARY = re.compile(r"^\s*(?:abstract|executive summary|summary)\b[\s.:\u2014\u2013-]*", re.I)


@dataclass(frozen=True)
class Quoted:
    """One sentence of the overview, where it is."""

    text: str
    chunk_id: str
    page: int
    locator: str | None = None


@dataclass(frozen=True)
class Overview:
    source: str
    doc_hash: str
    about: str = ""  # what the document says it is: "title; authors; date" ("" where none)
    headings: tuple[str, ...] = ()
    sentences: tuple[Quoted, ...] = ()
    summary: str = ""  # the author's summary section the sentences open ("" when central)
    columns: tuple[Quoted, ...] = ()  # its tables' column names ("County | Active | Total")
    chunks: int = 0
    pages: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Overview:
        return cls(
            **{
                **data,
                "headings": tuple(data.get("headings", ())),
                "sentences": tuple(Quoted(**q) for q in data.get("sentences", ())),
                "columns": tuple(Quoted(**q) for q in data.get("columns", ())),
            }
        )


@dataclass
class _Candidate:
    text: str
    chunk: Chunk
    order: tuple[int, int, int]  # where it is: chunk position, then sentence
    stems: list[str] = field(default_factory=list)


def make(
    source: str,
    doc_hash: str,
    chunks: Sequence[Chunk],
    vectors: np.ndarray | None,
    pages: int = 0,
) -> Overview:
    """The overview of one document from its chunks (in document order) and their vectors
    (None: the sentences are chosen by their words alone)."""
    about = next((split_heading(c.heading)[0] for c in chunks if c.heading), "")
    heads: dict[str, None] = {}
    for c in chunks:
        section = split_heading(c.heading)[1]
        if section and len(heads) < HEADINGS:
            heads.setdefault(" ".join(section.split())[:160], None)
    parts = [h.split(" > ") for h in heads]
    if len(parts) > 1 and len({p[0] for p in parts}) == 1:  # all under the title: drop it
        heads = dict.fromkeys(" > ".join(p[1:]) for p in parts if len(p) > 1)
    columns: dict[str, Quoted] = {}
    for c in chunks:
        for m in HEADER_LINE.finditer(c.text):
            names = " ".join(m.group(2).split())[:300]
            if len(columns) < TABLES and names not in columns:
                columns[names] = Quoted(names, c.chunk_id, c.page_start, c.locator)
    # every line and sentence once, in reading order: (chunk, its index, sentence index, text)
    lines = [
        (c, i, j, " ".join(s.split()))
        for i, c in enumerate(chunks)
        for j, s in enumerate(sentences(c.text))
    ]
    candidates = _candidates(lines)
    summary, picked = _authors_summary(chunks, lines, candidates)
    if not picked:
        picked = _central(chunks, vectors, candidates)
    return Overview(
        source,
        doc_hash,
        about,
        tuple(heads),
        tuple(
            Quoted(c.text, c.chunk.chunk_id, c.chunk.page_start, c.chunk.locator)
            for c in sorted(picked, key=lambda c: c.order)
        ),
        summary,
        tuple(columns.values()),
        len(chunks),
        pages,
    )


def _candidates(lines: Sequence[tuple[Chunk, int, int, str]]) -> list[_Candidate]:
    """Whole sentences of prose, each once (chunks overlap), in document order."""
    seen: set[str] = set()
    out: list[_Candidate] = []
    for c, i, j, text in lines:
        if ROW_LINE.match(text) or HEADER_LINE.match(text) or _RECORD.search(text):
            continue  # a table's rows are data, not sentences about the document
        key = text.lower()
        ws = words(text)
        prose = [w for w in ws if w.isalpha() and len(w) > 2]
        if (
            key in seen
            or not MIN_WORDS <= len(ws) <= MAX_WORDS
            or len(prose) < max(4, len(ws) // 2)  # figures, codes, a date line
            or text.startswith(ABOUT)
            or not ends_sentence(text)
        ):
            continue
        seen.add(key)
        out.append(_Candidate(text, c, (c.page_start, i, j), stems(text)))
    return out


def _authors_summary(
    chunks: Sequence[Chunk],
    lines: Sequence[tuple[Chunk, int, int, str]],
    candidates: list[_Candidate],
) -> tuple[str, list[_Candidate]]:
    """The author's own summary, when the document has one, up to ``SUMMARY_SENTENCES`` /
    ``SUMMARY_WORDS``: a section headed so, a line of the word alone (its sentences until
    the next heading), or a paragraph that begins with the word."""
    for c in chunks:
        section = re.split(r" [›>/] ", split_heading(c.heading)[1] or "")[-1].strip()
        if section and _SUMMARY_HEAD.fullmatch(section):
            inside = [
                k
                for k in candidates
                if split_heading(k.chunk.heading)[1] == split_heading(c.heading)[1]
            ]
            if inside:
                return section.strip(" .:"), _capped(inside)
    by_text = {k.text: k for k in candidates}
    for at, (_, _, _, line) in enumerate(lines):
        if not _SUMMARY_HEAD.fullmatch(line):
            continue
        taken: list[_Candidate] = []
        for *_, text in lines[at + 1 :]:
            if text in by_text and by_text[text] not in taken:
                taken.append(by_text[text])
            elif taken and len(words(text)) <= 6 and not ends_sentence(text):
                break  # the next heading: the summary ended
        if taken:
            return line.strip(" .:"), _capped(taken)
    for k in candidates:
        m = _SUMMARY.match(k.text)
        if m and len(words(k.text[: m.end()])) <= 2:
            at = candidates.index(k)
            first = _Candidate(k.text[m.end() :].strip(), k.chunk, k.order, k.stems)
            if len(words(first.text)) >= MIN_WORDS:
                rest = [x for x in candidates[at + 1 :] if x.chunk.chunk_id == k.chunk.chunk_id]
                return m.group(0).strip(" .:\u2014\u2013-"), _capped([first, *rest])
    return "", []


def _capped(summary: list[_Candidate]) -> list[_Candidate]:
    """The summary's opening sentences, at most ``SUMMARY_SENTENCES`` and about
    ``SUMMARY_WORDS`` words (the first always)."""
    out: list[_Candidate] = []
    n = 0
    for k in summary[:SUMMARY_SENTENCES]:
        n += len(words(k.text))
        if out and n > SUMMARY_WORDS:
            break
        out.append(k)
    return out


def _central(
    chunks: Sequence[Chunk], vectors: np.ndarray | None, candidates: list[_Candidate]
) -> list[_Candidate]:
    """The sentences that best stand for the document: each scored by how central its
    chunk's vector is (cosine to the document's mean vector) and by how much of the
    document's recurring vocabulary it holds; one a chunk while other chunks remain, never
    two that share most of their words."""
    if not candidates:
        return []
    df = Counter(s for c in chunks for s in set(stems(c.text)))

    def lexical(k: _Candidate) -> float:  # recurring words, per word; a link-heavy line less
        w = sum(math.log1p(df[s] - 1) for s in set(k.stems)) / math.sqrt(len(k.stems) or 1)
        return w * (0.3 if _LINK.search(k.text) else 1.0)

    index = {c.chunk_id: i for i, c in enumerate(chunks)}
    centrality = {c.chunk_id: 0.0 for c in chunks}
    if vectors is not None and len(vectors) == len(chunks) and len(chunks) > 1:
        v = np.asarray(vectors, dtype=np.float32)
        v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        centre = v.mean(axis=0)
        centre /= np.linalg.norm(centre) or 1.0
        centrality = {c.chunk_id: float(v[i] @ centre) for i, c in enumerate(chunks)}
    top = max(lexical(k) for k in candidates) or 1.0
    ranked = sorted(
        candidates,
        key=lambda k: (-(centrality[k.chunk.chunk_id] + lexical(k) / top), index[k.chunk.chunk_id]),
    )
    chunks_left = len({k.chunk.chunk_id for k in candidates})
    chosen: list[_Candidate] = []
    for k in ranked:
        used = {c.chunk.chunk_id for c in chosen}
        if k.chunk.chunk_id in used and chunks_left > len(used):
            continue
        if any(_overlap(k, c) > 0.6 for c in chosen):
            continue
        chosen.append(k)
        if len(chosen) == SENTENCES:
            break
    return chosen


def _overlap(a: _Candidate, b: _Candidate) -> float:
    x, y = set(a.stems), set(b.stems)
    return len(x & y) / (min(len(x), len(y)) or 1)


class Overviews:
    """The overviews of one table's documents (``<table>.overviews.json``; none for a table
    on object storage, or without a store: kept in memory only for the run)."""

    def __init__(self, store: Any) -> None:
        folder = store.location.folder if store is not None else None
        self.path = Path(folder) / f"{store.name}.overviews.json" if folder is not None else None
        data, _ = sidecar.read(self.path)
        self.entries: dict[str, dict[str, Any]] = (
            {str(k): v for k, v in data.items() if isinstance(v, dict)}
            if isinstance(data, dict)
            else {}
        )

    def record(self, overview: Overview) -> None:
        self.entries[overview.source] = overview.to_json()

    def get(self, source: str, doc_hash: str) -> Overview | None:
        """The overview made from this version of the document, or None."""
        data = self.entries.get(source)
        if not data or data.get("doc_hash") != doc_hash:
            return None
        try:
            return Overview.from_json(data)
        except (TypeError, ValueError):  # a file from another version of this module
            return None

    def save(self, keep: set[str]) -> None:
        """Write the entries of ``keep`` (the indexed sources); best effort: an overview
        lost is made again by the next ingest of its document."""
        if self.path is None:
            return
        try:
            sidecar.write(self.path, {s: o for s, o in self.entries.items() if s in keep})
        except OSError:
            pass
