"""The CRAG trace: what the pipeline did for the latest question, filled live from events.

The state is the run's ``RunRecord`` (fed one event at a time) plus a note; rendering is a
pure function of it, so the panel can be rebuilt at any moment (and tested without a terminal).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from localcrag import events as ev
from localcrag.crag.graders.base import RANK_GRADER
from localcrag.record import RunRecord
from localcrag.settings import LOWER_THRESHOLD, UPPER_THRESHOLD
from localcrag.textutil import source_label
from localcrag.tui.widgets.labels import BADGE
from localcrag.types import Grade

BAR = 10
STAGE_LABEL = {
    "retrieve": "retrieving",
    "grade": "grading",
    "refine": "refining",
    "web": "searching the web",
    "generate": "writing",
}


@dataclass
class TraceState(RunRecord):
    """The run's record (every fact the panel shows comes from its fold) plus the panel's note."""

    note: str = ""  # e.g. "cancelled", "failed: ..."

    @property
    def evidence_n(self) -> dict[int, tuple[int, ...]]:
        """Hit index -> the [n] it became in the answer."""
        return self.hit_numbers()


def fmt_ms(ms: float) -> str:
    return f"{ms:.0f}ms" if ms < 1000 else f"{ms / 1000:.1f}s"  # no space: wrapping never splits it


def score_bar(score: float, style: str) -> Text:
    filled = max(0, min(BAR, round(score * BAR)))
    return Text.assemble(("█" * filled, style), ("░" * (BAR - filled), "#555555"))


def _sub(*parts: str | tuple[str, str], style: str = "") -> Padding:
    """An indented line that stays indented when it wraps."""
    return Padding(Text.assemble(*parts, style=style), (0, 0, 0, 2))


def _heading(title: str, ms: float | None = None) -> Table:
    grid = Table.grid(expand=True)
    grid.add_column(ratio=1)
    grid.add_column(justify="right")
    grid.add_row("", "")  # a blank line between sections
    grid.add_row(Text(title, style="bold"), Text(fmt_ms(ms), style="dim") if ms is not None else "")
    return grid


def _score_style(score: float, upper: float, lower: float) -> str:
    return "#66bb6a" if score >= upper else "#fdd835" if score >= lower else "#ef5350"


def render_trace(state: TraceState, upper: float, lower: float) -> RenderableType:
    """The whole panel as one Rich renderable."""
    if not state.question:
        return Text(
            "Ask a question: each step of Corrective RAG shows up here as it happens.", style="dim"
        )
    if state.decision is not None:
        upper, lower = state.decision.upper, state.decision.lower
    parts: list[RenderableType] = [Text("Question", style="bold"), _sub(state.question)]
    if state.rewritten:
        parts.append(_sub(("↳ standalone: ", "dim"), (state.rewritten, "italic")))
    if state.hits or "retrieve" in state.timings:
        parts.append(_heading(f"Retrieved {len(state.hits)} chunks", state.timings.get("retrieve")))
        if state.retrieval_fallback:
            parts.append(_sub(f"⚠ {state.retrieval_fallback}", style="#fdd835"))
        grid = Table.grid(padding=(0, 1), expand=True)
        for col in (
            {"width": 2, "justify": "right"},
            {"width": BAR, "min_width": BAR},
            {"width": 4, "min_width": 4},
            {"ratio": 1},
        ):
            grid.add_column(no_wrap=True, overflow="ellipsis", **col)
        top = max((h.score for h in state.hits), default=1.0) or 1.0
        for i, hit in enumerate(state.hits):
            grade = state.grades.get(i)
            if grade is not None:
                score, style = grade.score, _score_style(grade.score, upper, lower)
            else:
                score, style = hit.score / top, "#5c6bc0"
            label = source_label(
                hit.chunk.source, hit.chunk.page, page_first=True, locator=hit.chunk.locator
            )
            cell = Text(label + (" ⚠" if grade is not None and grade.error else ""))
            if ns := state.evidence_n.get(i):
                cell = Text.assemble((" ".join(f"[{n}]" for n in ns) + " ", "bold #90caf9"), cell)
            grid.add_row(str(i + 1), score_bar(score, style), f"{score:.2f}", cell)
        parts.append(grid)
        if state.grades:
            by = next(iter(state.grades.values())).grader
            parts.append(
                _sub(
                    (
                        f"bars: {by}, not graded"
                        if by == RANK_GRADER
                        else f"bars: relevance graded by {by}"
                    )
                    + (f" in {fmt_ms(state.timings['grade'])}" if "grade" in state.timings else "")
                    + ("; [n]: its number in the answer" if state.evidence_n else ""),
                    style="dim",
                )
            )
            parts.extend(_grade_errors(state.grades))
    if state.decision is not None:
        d = state.decision
        label, style = BADGE[d.action]
        parts.append(
            Text.assemble(
                ("\nDecision  ", "bold"),
                (f" {label} ", style),
                (f"  best {d.best_score:.2f}", "dim"),
            )
        )
        parts.append(_sub(d.reason, style="dim"))
        if d.basis != "settings":  # calibrated on the corpus (or why not): say which thresholds
            parts.append(_sub(f"thresholds {d.lower:.2f} / {d.upper:.2f}: {d.basis}", style="dim"))
    if state.refined is not None:
        kept, considered = state.refined
        parts.append(
            _heading(f"Refinement kept {kept} of {considered} strips", state.timings.get("refine"))
        )
    parts.extend(_web_parts(state))
    if state.generator_fallback:
        parts.append(_sub(f"⚠ {state.generator_fallback}", style="#fdd835"))
    if state.trimmed:
        parts.append(
            Text(
                f"Dropped {len(state.trimmed)} evidence item(s) to fit the context", style="#fdd835"
            )
        )
    if state.style is not None:
        parts.append(
            _heading(
                "Answer "
                + (
                    "quoted"
                    if state.style.style == "extractive"
                    else "written, each sentence checked"
                )
            )
        )
        parts.append(_sub(state.style.reason, style="dim"))
    for sentence, reason in state.dropped:
        short = sentence if len(sentence) <= 70 else sentence[:69] + "…"
        parts.append(_sub(("✗ not shown: ", "#ef9a9a"), (f"{short} ({reason})", "dim")))
    if state.stage:
        parts.append(Text(f"… {STAGE_LABEL.get(state.stage, state.stage)}", style="italic #90caf9"))
    if state.done or "generate" in state.timings:
        parts.extend(_timing_parts(state))
    if state.note:
        parts.append(Text(state.note, style="bold #fdd835"))
    return Group(*parts)


def _timing_parts(state: TraceState) -> list[RenderableType]:
    """Two kinds of time, never on one line: how long each stage took, and when things
    happened counted from the question (events.py defines each key once)."""
    t = dict(state.timings)
    if state.total_ms is not None:
        t.setdefault("total", state.total_ms)
    stages = [f"{ev.TIMING_LABELS.get(k, k)} {fmt_ms(t[k])}" for k in ev.STAGE_TIMINGS if k in t]
    elapsed = [f"{ev.TIMING_LABELS[k]} {fmt_ms(t[k])}" for k in ev.ELAPSED_TIMINGS if k in t]
    if "load" in t and elapsed:  # the first question of a session waits for the models
        elapsed[0] += f" (incl. loading models {fmt_ms(t['load'])})"
    out: list[RenderableType] = [_heading("Timings")]
    if stages:
        out.append(_sub(("stage took  ", "bold dim"), " · ".join(stages), style="dim"))
    if elapsed:
        out.append(_sub(("after asking  ", "bold dim"), " · ".join(elapsed), style="dim"))
    return out


def _grade_errors(grades: dict[int, Grade]) -> list[RenderableType]:
    """Each grading failure once (⚠ marks its chunks): a fallback score is never silent."""
    errors: dict[str, int] = {}
    for g in grades.values():
        if g.error:
            errors[g.error] = errors.get(g.error, 0) + 1
    return [
        _sub(f"⚠ grading failed for {n} of {len(grades)}: {err}", style="#fdd835")
        for err, n in errors.items()
    ]


def _web_parts(state: TraceState) -> list[RenderableType]:
    if state.web_query is None and state.web_skipped is None and "web" not in state.timings:
        return []
    out: list[RenderableType] = [_heading("Web search", state.timings.get("web"))]
    if state.web_query:
        out.append(_sub(("query ", "dim"), (f"“{state.web_query}”", "italic")))
    if state.web_skipped:
        out.append(_sub(f"skipped: {state.web_skipped}", style="dim"))
    if state.web_error:
        out.append(_sub(f"✗ {state.web_error}", style="#ef5350"))
    for r in state.web_results or ():
        out.append(_sub("• ", (r.title or r.url, "bold"), ("  " + r.url, "dim #90caf9")))
    if state.web_results == ():
        out.append(_sub("no results", style="dim"))
    return out


class TracePanel(VerticalScroll):
    """Scrollable panel that re-renders the trace whenever an event changes it."""

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = TraceState()
        self.upper, self.lower = UPPER_THRESHOLD, LOWER_THRESHOLD

    def compose(self):  # noqa: ANN201
        yield Static(id="trace-body")

    def on_mount(self) -> None:
        self.border_title = "CRAG trace"
        self.redraw()

    def reset(
        self, question: str = "", upper: float = UPPER_THRESHOLD, lower: float = LOWER_THRESHOLD
    ) -> None:
        self.state = TraceState(question=question)
        self.upper, self.lower = upper, lower
        self.redraw()

    def add(self, event: object) -> None:
        if self.state.add(event) and not isinstance(event, ev.Token):  # the answer shows tokens
            self.redraw()

    def set_note(self, note: str) -> None:
        self.state.note = note
        self.state.stage = None
        self.redraw()

    def redraw(self) -> None:
        if self.is_mounted:
            self.query_one("#trace-body", Static).update(
                render_trace(self.state, self.upper, self.lower)
            )
