"""Events the pipeline yields. The CLI prints them, the TUI renders them, eval collects them.

The core never prints: every observable step of a run is one of these values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from localcrag.types import Answer, Decision, Evidence, Grade, Hit, Scope, Strip, WebResult


@dataclass(frozen=True)
class StageStarted:
    stage: str  # retrieve | grade | refine | web | generate
    detail: str = ""


@dataclass(frozen=True)
class StageFinished:
    stage: str
    ms: float


@dataclass(frozen=True)
class QuestionRewritten:
    """A follow-up was rewritten into a standalone question before retrieval."""

    original: str
    rewritten: str


@dataclass(frozen=True)
class Retrieved:
    hits: tuple[Hit, ...]
    fallback: str | None = None  # e.g. "vector only: full-text search failed (...)"
    scope: Scope | None = None  # the documents searched, when the question was scoped


@dataclass(frozen=True)
class ChunkGraded:
    grade: Grade
    index: int
    total: int


@dataclass(frozen=True)
class DecisionMade:
    decision: Decision


@dataclass(frozen=True)
class Refined:
    strips: tuple[Strip, ...]
    considered: int  # strips scored before filtering


@dataclass(frozen=True)
class WebQuery:
    query: str


@dataclass(frozen=True)
class WebResults:
    query: str
    results: tuple[WebResult, ...]


@dataclass(frozen=True)
class WebError:
    query: str | None
    error: str


@dataclass(frozen=True)
class WebSkipped:
    reason: str  # offline | disabled | declined | not needed


@dataclass(frozen=True)
class EvidenceTrimmed:
    """Evidence dropped (lowest score first) so the prompt fits the context window."""

    dropped: tuple[Evidence, ...]
    n_ctx: int


@dataclass(frozen=True)
class StyleChosen:
    """How the answer is written, known before its first token (or changed when nothing the
    model wrote passed the grounding check and a quote replaces it)."""

    style: str  # "extractive" | "generative"
    reason: str
    model: str = ""  # the generator's name (for "Written by <model>")


@dataclass(frozen=True)
class SentenceDropped:
    """A generated sentence the evidence does not support: never shown."""

    sentence: str
    reason: str


@dataclass(frozen=True)
class GeneratorFellBack:
    """The model server (``llm_endpoint``) failed, so the local model goes on; ``message``
    is the one line naming the URL and the failure."""

    url: str
    message: str


@dataclass(frozen=True)
class AnswerRestarted:
    """What was streamed so far is withdrawn and the answer starts over; ``reason`` says why
    and who answers: the model server stopped mid-answer (the local model writes), or no
    passage of the documents stated the answer (the web's results answer).
    ``server_failed``: the first case (the CLI's exit status reports it)."""

    reason: str
    server_failed: bool = True


@dataclass(frozen=True)
class Token:
    text: str


# The keys of AnswerDone.timings_ms, each defined once. Stage names are *durations* of that
# stage; the rest are *elapsed since the question was received* (Pipeline.run was called),
# so first_token <= generate_end <= total on every run (generate_end is absent on a refusal).
# "load" is loading the models this run needs and this process has not loaded yet (the
# generator, the retrieval evaluator): absent once they are loaded; "rewrite" is turning a
# follow-up into a standalone question (absent without earlier turns).
STAGE_TIMINGS = ("load", "rewrite", "retrieve", "grade", "refine", "web", "generate")
ELAPSED_TIMINGS = ("first_token", "generate_end", "total")
TIMING_LABELS = {
    "load": "loading models",
    "first_token": "first token",
    "generate_end": "answer written",
    "total": "done",
}


@dataclass(frozen=True)
class AnswerDone:
    answer: Answer
    evidence: tuple[Evidence, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)


Event = (
    StageStarted
    | StageFinished
    | QuestionRewritten
    | Retrieved
    | ChunkGraded
    | DecisionMade
    | Refined
    | WebQuery
    | WebResults
    | WebError
    | WebSkipped
    | EvidenceTrimmed
    | AnswerRestarted
    | StyleChosen
    | SentenceDropped
    | GeneratorFellBack
    | Token
    | AnswerDone
)
