"""Typed values passed between pipeline stages (frozen, so no stage mutates another's)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True)
class Page:
    """Text of one page (PDF) or one section (text formats), as parsed."""

    number: int  # 1-based page number; 1 for formats without pages
    text: str
    heading: str | None = None  # nearest heading at the start of the page
    unit: str = ""  # "" = a printed page; else what ``number`` counts: ocr, slide, row, table
    scope: str = ""  # what the unit lives in, e.g. "sheet Sales" for spreadsheet rows


@dataclass(frozen=True)
class Chunk:
    """A retrievable span of a document, small enough for the embedder."""

    chunk_id: str
    source: str  # absolute path of the file, or a URL
    text: str
    page_start: int
    page_end: int
    char_start: int  # offsets into the document's joined text
    char_end: int
    # what its document is, then the section heading in force (textutil.labels.DOCUMENT)
    heading: str | None = None
    n_tokens: int = 0
    locator: str | None = None  # "slide 3", "sheet Sales, rows 2–9", "p. 4 (OCR)"; None: page_start

    @property
    def page(self) -> int:
        return self.page_start


@dataclass(frozen=True)
class Scope:
    """Where a question looks: the indexed files its patterns matched (``ingest/scope.py``).
    Kept on the run so a refusal can say what was searched and an answer where it looked."""

    patterns: tuple[str, ...]  # as the user gave them: paths, folders, globs, file names
    sources: tuple[str, ...]  # the indexed files they matched (never empty)
    passages: int = 0  # chunks of those files in the index
    named_in_question: str = ""  # the words of the question that named it ("in the 2019 report")

    @property
    def label(self) -> str:
        """ "2019 Annual Report.pdf" for one file, else "4 files (reports, *.csv)"."""
        if len(self.sources) == 1:
            return os.path.basename(self.sources[0])
        return f"{len(self.sources)} files ({', '.join(self.patterns)})"


@dataclass(frozen=True)
class Hit:
    """A chunk returned by retrieval, with its retrieval score and rank."""

    chunk: Chunk
    score: float
    rank: int


class Action(str, Enum):
    """The three CRAG actions (Yan et al. 2024)."""

    CORRECT = "correct"
    AMBIGUOUS = "ambiguous"
    INCORRECT = "incorrect"


@dataclass(frozen=True)
class Grade:
    """The retrieval evaluator's verdict on one chunk: relevance in [0, 1]."""

    chunk: Chunk
    score: float
    grader: str
    signals: dict[str, float] = field(default_factory=dict)
    error: str | None = None  # set when grading failed and a fallback score was used
    # one unit of the chunk binds the whole question (crag/answer/binding): kept before
    # chunks that only score higher
    binds: bool = False


@dataclass(frozen=True)
class Decision:
    """The CRAG action and why it was taken."""

    action: Action
    best_score: float
    upper: float
    lower: float
    reason: str
    basis: str = "settings"  # where upper/lower came from (settings, or calibrated on the corpus)
    # what no kept passage holds (the question's constraints as it wrote them), and the
    # unit that came closest with its chunk: said in the refusal (crag/binding)
    missing: tuple[str, ...] = ()
    closest: str | None = None
    closest_chunk: Chunk | None = None


@dataclass(frozen=True)
class Strip:
    """A sentence-level piece of a chunk kept by knowledge refinement."""

    text: str
    chunk: Chunk
    score: float
    order: int


@dataclass(frozen=True)
class WebResult:
    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class Evidence:
    """One numbered item of context given to the generator ([n] in the answer).

    ``chunk_id`` names the indexed chunk a document item came from, so a front end opens
    exactly that passage (``Library.get_chunk``); web items carry their result's ``url``.
    """

    n: int
    text: str
    source: str
    page: int | None = None
    url: str | None = None
    score: float = 0.0
    kind: str = "document"  # "document" or "web"
    chunk_id: str | None = None
    locator: str | None = None  # where in the file when not a plain page (Chunk.locator)
    heading: str | None = None  # its document and section heading (Chunk.heading): context


@dataclass(frozen=True)
class Citation:
    n: int
    source: str
    page: int | None
    url: str | None
    locator: str | None = None  # Evidence.locator: "slide 3", "p. 4 (OCR)"
    document: str | None = None  # what the file is, where its name does not say (labels)


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    citations: tuple[Citation, ...]
    action: Action | None
    refused: bool = False
    style: str = (
        "generative"  # "extractive" (quoted from the evidence) | "generative" (written, checked)
    )
    dropped_sentences: int = 0  # generated sentences the grounding check removed
    short: str | None = None  # the short answer a quote emphasises (the reader's span), verbatim
