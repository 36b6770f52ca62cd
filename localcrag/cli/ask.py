"""``localcrag ask``: stream an answer, then show the decision and the sources."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from localcrag import events as ev


def register(sub: argparse._SubParsersAction) -> None:
    from localcrag.cli.args import positive_int

    s = sub.add_parser("ask", help="ask a question about your documents")
    s.add_argument("question")
    s.add_argument("--mode", choices=["crag", "rag"], default="crag",
                   help="crag (default) or standard RAG for comparison")
    net = s.add_mutually_exclusive_group()
    net.add_argument("--offline", action="store_true", help="guarantee no network access")
    net.add_argument("--web", action="store_true",
                     help="allow the web fallback without asking (web_search=always)")
    s.add_argument("-k", type=positive_int, default=None, help="chunks to retrieve")
    s.add_argument("--style", choices=["auto", "extractive", "generative"], default=None,
                   help="extractive quotes the evidence; generative lets the model write, each "
                        "sentence checked (default: the answer_style setting)")
    s.add_argument("--json", action="store_true", help="print one JSON object at the end")
    s.set_defaults(func=cmd_ask)


def _confirm(query: str) -> bool:
    """Ask on the terminal before anything leaves the machine; no terminal means no."""
    if not sys.stdin.isatty() or not sys.stderr.isatty():
        return False
    sys.stderr.write(f'\nSearch the web for "{query}"? Only this query is sent. [y/N] ')
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def cmd_ask(args: argparse.Namespace) -> int:
    from localcrag.crag.pipeline import Pipeline
    from localcrag.settings import Settings

    settings = Settings.load()
    if args.offline:
        settings.offline = True
    if args.web:
        settings.web_search = "always"
    pipe = Pipeline(settings)
    record = _Record(args.question, args.mode)
    stream = sys.stdout.isatty() and not args.json
    streamed = ""
    for event in pipe.run(args.question, mode=args.mode, confirm_web=_confirm, k=args.k,
                          style=args.style):
        record.add(event)
        if stream and isinstance(event, ev.Token):
            streamed += event.text
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif not args.json and isinstance(event, (ev.WebError, ev.EvidenceTrimmed)):
            print(f"\n[{_describe(event)}]", file=sys.stderr)
    if args.json:
        print(json.dumps(record.to_json(), ensure_ascii=False))
        return 0
    if not stream:
        print(record.answer)
    elif record.answer.strip() != streamed.strip():  # the model's draft gave way to a quote
        print(f"\n\n({record.label()}) {record.answer}")
    print()
    print(record.summary())
    return 0


def _describe(event: object) -> str:
    if isinstance(event, ev.WebError):
        return f"web search: {event.error}"
    if isinstance(event, ev.EvidenceTrimmed):
        return f"dropped {len(event.dropped)} evidence item(s) to fit the {event.n_ctx}-token context"
    return str(event)


class _Record:
    """Collects a run's events into the JSON contract of `ask --json`."""

    def __init__(self, question: str, mode: str) -> None:
        self.question, self.mode = question, mode
        self.grades: list = []
        self.action = None
        self.reason = ""
        self.web = {"attempted": False, "query": None, "results": [], "error": None}
        self.done: ev.AnswerDone | None = None
        self.hits: list = []
        self.style: ev.StyleChosen | None = None

    def add(self, e: object) -> None:
        if isinstance(e, ev.Retrieved):
            self.hits = list(e.hits)
        elif isinstance(e, ev.ChunkGraded):
            self.grades.append(e.grade)
        elif isinstance(e, ev.DecisionMade):
            self.action, self.reason = e.decision.action.value, e.decision.reason
        elif isinstance(e, ev.WebQuery):
            self.web.update(attempted=True, query=e.query)
        elif isinstance(e, ev.WebResults):
            self.web["results"] = [{"title": r.title, "url": r.url} for r in e.results]
        elif isinstance(e, ev.WebError):
            self.web["error"] = e.error
        elif isinstance(e, ev.StyleChosen):
            self.style = e
        elif isinstance(e, ev.AnswerDone):
            self.done = e

    def label(self) -> str:
        """"Quoted from your documents" or "Written by <model>, checked against ..."."""
        from localcrag.crag.style import style_label

        style = self.done.answer.style if self.done else (self.style.style if self.style else "")
        web = bool(self.web["results"])
        return style_label(style, self.style.model if self.style else "", web=web)

    @property
    def answer(self) -> str:
        return self.done.answer.text if self.done else ""

    def to_json(self) -> dict:
        t = self.done.timings_ms if self.done else {}
        return {
            "question": self.question, "mode": self.mode, "action": self.action,
            "grades": [{"chunk_id": g.chunk.chunk_id, "source": g.chunk.source,
                        "page": g.chunk.page, "score": round(g.score, 4)} for g in self.grades],
            "web": self.web, "answer": self.answer,
            "answer_style": self.done.answer.style if self.done and not self.done.answer.refused else None,
            "dropped_sentences": self.done.answer.dropped_sentences if self.done else 0,
            "citations": [{"n": c.n, "source": c.source, "page": c.page, "url": c.url}
                          for c in (self.done.answer.citations if self.done else ())],
            "timings_ms": {k: t.get(k) for k in
                           ("retrieve", "grade", "refine", "web", "generate", "first_token")},
        }

    def summary(self) -> str:
        lines = []
        if self.done and not self.done.answer.refused:
            lines.append(f"Answer: {self.label()}"
                         + (f" ({self.done.answer.dropped_sentences} unsupported sentence(s) "
                            "dropped)" if self.done.answer.dropped_sentences else ""))
        if self.action:
            lines.append(f"Decision: {self.action.upper()} ({self.reason})")
        if self.web["error"]:
            lines.append(f"Web: {self.web['error']}")
        if self.done and self.done.answer.citations:
            lines.append("Sources:")
            for c in self.done.answer.citations:
                where = c.url or f"{Path(c.source).name}, page {c.page}"
                lines.append(f"  [{c.n}] {where}")
        elif self.done and not self.done.answer.refused:
            lines.append("Sources: the answer cites none of the evidence")
        return "\n".join(lines)
