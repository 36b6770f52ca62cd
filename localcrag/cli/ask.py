"""``localcrag ask``: stream an answer, then show the decision and the sources."""

from __future__ import annotations

import argparse
import sys

from localcrag import events as ev
from localcrag.cli.output import dumps, raw_stdout
from localcrag.cli.render import AnswerView
from localcrag.history import Conversation, History, Turn
from localcrag.record import RunRecord, scope_json
from localcrag.registry import ANSWER_STYLES
from localcrag.textutil import shown, source_label

# Exit status of an answer the local model wrote after the model server stopped mid-answer:
# the answer is complete, but not from the server the settings name (a script can tell).
RESTARTED = 3


def register(sub: argparse._SubParsersAction) -> None:
    from localcrag.cli.args import GENERATOR_HELP, add_scope_option, positive_int

    s = sub.add_parser("ask", help="ask a question about your documents")
    s.add_argument("question")
    s.add_argument(
        "--mode",
        choices=["crag", "rag"],
        default="crag",
        help="crag (default) or standard RAG for comparison",
    )
    net = s.add_mutually_exclusive_group()
    net.add_argument("--offline", action="store_true", help="guarantee no network access")
    net.add_argument(
        "--web",
        action="store_true",
        help="allow the web fallback without asking (web_search=always)",
    )
    s.add_argument("-k", type=positive_int, default=None, help="chunks to retrieve")
    add_scope_option(s)
    s.add_argument(
        "--style",
        choices=list(ANSWER_STYLES),
        default=None,
        help="extractive quotes the evidence; generative lets the model write, each "
        "sentence checked (default: the answer_style setting)",
    )
    s.add_argument("--generator", metavar="NAME", default=None, help=GENERATOR_HELP)
    s.add_argument("--json", action="store_true", help="print one JSON object at the end")
    s.add_argument(
        "--after",
        action="append",
        default=[],
        metavar="EARLIER_QUESTION",
        help="an earlier question of the conversation (repeat for several, oldest "
        "first): a follow-up is rewritten to stand alone, and the rewrite is shown",
    )
    s.add_argument(
        "-c",
        "--continue",
        dest="cont",
        action="store_true",
        help="continue the most recent conversation (the app's or the command line's): a "
        "follow-up is read in its context, and its documents (--in) are kept",
    )
    s.add_argument(
        "--everywhere",
        action="store_true",
        help="search every document even when the question names one ('In the 2019 report, ...')",
    )
    s.add_argument(
        "--no-rewrite",
        action="store_true",
        help="ask the question as typed, never rewritten as a follow-up",
    )
    s.set_defaults(func=cmd_ask)


def _confirm(query: str) -> bool:
    """Ask on the terminal before anything leaves the machine (only given when there is one)."""
    sys.stderr.write(f'\nSearch the web for "{query}"? Only this query is sent. [y/N] ')
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def cmd_ask(args: argparse.Namespace) -> int:
    from localcrag.cli.args import user_settings, with_generator

    settings = with_generator(user_settings(args.offline), args.generator)
    if args.web:
        settings.web.web_search = "always"
    pipe = args.backends.pipeline(settings)
    log = History(settings.history_dir)
    conv = log.last() if args.cont else None
    if args.cont and conv is None:
        print("localcrag: no earlier conversation to continue: asking it alone", file=sys.stderr)
    patterns = args.within or []
    scope = pipe.library.scope(patterns) if patterns else None
    last = conv.turns[-1].scope if conv and conv.turns else None
    if scope is None and last and not args.everywhere:
        indexed = {d.source for d in pipe.library.sources()}
        if kept := [s for s in last if s in indexed]:  # the conversation's documents
            scope = pipe.library.scope_of(kept)
            if not args.json:
                print(
                    f"[asked within {shown(scope.label)}, as the conversation was "
                    "(--everywhere searches every document)]",
                    file=sys.stderr,
                )
    record = RunRecord(args.question, args.mode)
    stream = sys.stdout.isatty() and not args.json
    can_ask = sys.stdin.isatty() and sys.stderr.isatty()  # no terminal: no consent, no DNS lookup
    # questions only: the rewriter never sees answers
    history = [(q, "") for q in args.after or []] or (conv.pairs(limit=6) if conv else [])
    rewrite = not args.no_rewrite
    view = AnswerView(
        raw_stdout(), terminal=stream
    )  # rendered Markdown in a terminal, else plain text
    with view:
        for event in pipe.run(
            args.question,
            mode=args.mode,
            confirm_web=_confirm if can_ask else None,
            k=args.k,
            history=history,
            rewrite=rewrite,
            style=args.style,
            scope=scope,
            named_scope=not args.everywhere,
            alone=not history,
        ):
            record.add(event)
            _show(event, args, view)
        if not args.json:
            view.finish(record.answer.text if record.answer else "")
    _log(log, conv, record)
    if args.json:
        out = to_json(record)
        out["generator"] = {
            **pipe.generator_info(),
            "fallback": record.generator_fallback,
            "restarted": record.restarted,
        }
        print(dumps(out))
        return RESTARTED if record.restarted else 0
    print()
    print(summary(record))
    return RESTARTED if record.restarted else 0


def _log(log: History, conv: Conversation | None, r: RunRecord) -> None:
    """Keep the run in history, in the conversation it continued or a new one (``-c`` and the
    app read it back); a history that cannot be written is a warning, never a lost answer."""
    from localcrag.crag.pipeline import FOLLOW_UP_ALONE

    if r.answer is None or r.answer.text == FOLLOW_UP_ALONE:  # nothing asked: nothing to continue
        return
    turn = Turn.from_answer(
        r.answer,
        r.evidence,
        rewritten=r.rewritten,
        model=r.style.model if r.style else "",
        sources=r.sources,
        searched=r.searched["text"] if r.searched and r.claims_nothing else "",
        inferred=r.sources_inferred,
        scope=r.scope.sources if r.scope else None,
    )
    try:
        log.append((conv or log.create()).id, turn)
    except Exception as exc:  # noqa: BLE001 - the answer was printed
        from localcrag.errors import describe_error

        print(f"warning: the conversation was not saved: {describe_error(exc)[0]}", file=sys.stderr)


def _show(event: object, args: argparse.Namespace, view: AnswerView) -> None:
    """What an event prints while the answer streams (notes on stderr)."""
    if isinstance(event, ev.QuestionRewritten) and not args.json:
        print(
            f"[understood as: {event.rewritten} (--no-rewrite asks it as typed)]", file=sys.stderr
        )
    elif view.terminal and isinstance(event, ev.Token):
        view.feed(event.text)
    elif not args.json and isinstance(event, (ev.WebError, ev.EvidenceTrimmed)):
        print(f"\n[{_describe(event)}]", file=sys.stderr)
    elif not args.json and isinstance(event, ev.Retrieved):
        if event.fallback:
            print(f"warning: retrieval: {event.fallback}", file=sys.stderr)
        if event.scope is not None and event.scope.named_in_question:
            print(
                f"[asked within {shown(event.scope.label)}: the question names it "
                "(--everywhere searches every document)]",
                file=sys.stderr,
            )
    elif not args.json and isinstance(event, ev.GeneratorFellBack):
        print(f"\nwarning: {event.message}", file=sys.stderr)
    elif view.terminal and isinstance(event, ev.AnswerRestarted):  # shown already: marked, not kept
        view.feed(
            f"\n\n[{event.reason}: the text above is withdrawn"
            f"{'; the local model answers' if event.server_failed else ''}:]\n\n"
        )


def _describe(event: object) -> str:
    if isinstance(event, ev.WebError):
        return f"web search: {event.error}"
    if isinstance(event, ev.EvidenceTrimmed):
        return (
            f"dropped {len(event.dropped)} evidence item(s) to fit the {event.n_ctx}-token context"
        )
    return str(event)


def _binding(r: RunRecord) -> dict:
    """What the question constrains (crag/constraints) and, when no kept passage bound all
    of it, what was missing and which unit came closest."""
    from localcrag.crag.answer.constraints import read

    c = read(r.rewritten or r.question) if (r.rewritten or r.question) else None
    d = r.decision
    return {
        "slot": c.slot if c else None,
        "periods": [p.text for p in c.periods] if c else [],
        "numbers": list(c.numbers) if c else [],
        "entities": list(c.entities) if c else [],
        "terms": list(c.terms) if c else [],
        "missing": list(d.missing) if d else [],
        "closest": {"text": d.closest, "chunk_id": d.closest_chunk.chunk_id}
        if d and d.closest and d.closest_chunk
        else None,
    }


def to_json(r: RunRecord) -> dict:
    """The `ask --json` contract (docs/cli-json.md), read from the run's record."""
    answer = r.answer
    return {
        "question": r.question,
        "mode": r.mode,
        "action": r.action.value if r.action else None,
        "reason": r.decision.reason if r.decision else None,
        "retrieval_fallback": r.retrieval_fallback,
        "scope": scope_json(r.scope),
        "thresholds": (
            {
                "upper": round(r.decision.upper, 4),
                "lower": round(r.decision.lower, 4),
                "basis": r.decision.basis,
            }
            if r.decision
            else None
        ),
        "binding": _binding(r),
        "grades": [
            {
                "chunk_id": g.chunk.chunk_id,
                "source": g.chunk.source,
                "page": g.chunk.page,
                "locator": g.chunk.locator,
                "score": round(g.score, 4),
                "grader": g.grader,
                "error": g.error,
            }
            for g in r.graded
        ],
        "grade_errors": grade_errors(r),
        "web": {
            "attempted": r.web_query is not None,
            "query": r.web_query,
            "results": [{"title": x.title, "url": x.url} for x in r.web_results or ()],
            "error": r.web_error,
        },
        "answer": answer.text if answer else "",
        "refused": bool(answer and answer.refused),
        "answer_style": answer.style if answer and not answer.refused else None,
        "dropped_sentences": answer.dropped_sentences if answer else 0,
        "short_answer": answer.short if answer else None,
        "citations": [
            {
                "n": c.n,
                "source": c.source,
                "page": c.page,
                "locator": c.locator,
                "url": c.url,
                "document": c.document,
                "in_text": not r.sources_inferred,
            }
            for c in r.sources
        ],
        "searched": r.searched,
        "evidence": [
            {
                "n": e.n,
                "kind": e.kind,
                "source": e.source,
                "page": e.page,
                "locator": e.locator,
                "url": e.url,
                "chunk_id": e.chunk_id,
            }
            for e in r.evidence
        ],
        "timings_ms": {k: r.timings.get(k) for k in (*ev.STAGE_TIMINGS, *ev.ELAPSED_TIMINGS)},
        "rewritten": r.rewritten,
    }


def grade_errors(r: RunRecord) -> list[str]:
    """Each distinct grading failure once, with how many chunks it hit and who scored them."""
    counts: dict[tuple[str | None, str], int] = {}  # Grade.error is set on every one
    for g in r.grade_errors:
        counts[(g.error, g.grader)] = counts.get((g.error, g.grader), 0) + 1
    return [
        f"{n} of {len(r.grades)} chunks: {err} (scored by: {who})"
        for (err, who), n in counts.items()
    ]


def summary(r: RunRecord) -> str:
    """The lines printed after the answer: grading failures, decision, web failure, sources."""
    lines = [f"Grading failed for {e}" for e in grade_errors(r)]
    if r.style_label:
        dropped = r.answer.dropped_sentences if r.answer else 0
        lines.append(
            f"Answer: {r.style_label}"
            + (f" ({dropped} unsupported sentence(s) not shown)" if dropped else "")
        )
    if r.decision:
        lines.append(f"Decision: {r.decision.action.value.upper()} ({r.decision.reason})")
    if r.scope is not None and not r.claims_nothing:  # a refusal's searched line says it
        lines.append(f"Asked within: {shown(r.scope.label)}, {r.scope.passages} passages")
    if r.web_error:
        lines.append(f"Web: {r.web_error}")
    return "\n".join(lines + rests_on(r))


def rests_on(r: RunRecord) -> list[str]:
    """The lines under an answer: its sources (every answer has one), or, under a refusal,
    what was searched ("Searched 5 passages from 3 files; closest: FILE, p. N.")."""
    if r.answer is None:
        return []
    if r.claims_nothing:
        return [shown(r.searched["text"])] if r.searched else []
    if not r.sources:
        return ["Sources: none (no evidence was given to the answer)"]
    head = (
        "Sources:"
        if not r.sources_inferred
        else "Sources (not cited in the text; the passage the answer shares the most words with):"
    )
    return [
        head,
        *(
            f"  [{c.n}] {shown(source_label(c.source, c.page, url=c.url, locator=c.locator))}"
            + (f" ({shown(c.document)})" if c.document else "")
            for c in r.sources
        ),
    ]
