"""Conversations on disk: one JSON file per conversation under ``settings.history_dir``.

Headless (no textual) so the CLI, eval scripts and tests can read what the app wrote.
Every write goes to a temporary file that replaces the old one, so a crash mid-write
never leaves a half-written conversation. A damaged file is listed as damaged (``scan``)
and reported as a one-line LocalcragError when opened.
"""

from __future__ import annotations

import builtins
import json
import re
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError
from localcrag.settings.files import private_dir, write_private
from localcrag.types import Answer, Citation, Evidence

FORMAT = 1
TITLE_CHARS = 60
CURRENT = "current.txt"  # id of the conversation that was open (not *.json: never listed)
_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


@dataclass
class Turn:
    """One question and its answer, with what is needed to reopen its citations later."""

    question: str
    answer: str
    citations: list[dict[str, Any]] = field(default_factory=list)  # n, source, page, url
    action: str | None = None  # correct | ambiguous | incorrect | None (rag mode)
    rewritten: str | None = None  # the standalone question, when the follow-up was rewritten
    evidence: list[dict[str, Any]] = field(default_factory=list)  # Evidence fields
    refused: bool = False
    cancelled: bool = False
    at: float = 0.0
    style: str | None = None  # extractive | generative (None: written before styles were stored)
    model: str = ""  # the generator that wrote a generative answer, for its label
    dropped: int = 0  # generated sentences the grounding check removed
    searched: str = (
        ""  # a refusal's "Searched 5 passages from 3 files; closest: ..." (RunRecord.searched)
    )
    inferred: bool = (
        False  # the citation is the closest evidence, not a [n] in the text (RunRecord.sources)
    )
    scope: list[str] | None = None  # the documents it was asked within (None: all of them)

    @classmethod
    def from_answer(
        cls,
        answer: Answer,
        evidence: Sequence[Evidence] = (),
        *,
        rewritten: str | None = None,
        cancelled: bool = False,
        at: float = 0.0,
        model: str = "",
        sources: Sequence[Citation] | None = None,
        searched: str = "",
        inferred: bool = False,
        scope: Sequence[str] | None = None,
    ) -> Turn:
        """Build a turn from the pipeline's AnswerDone parts; each evidence item keeps the id
        of the chunk it came from (``Evidence.chunk_id``). ``sources`` (default: the answer's
        citations), ``searched`` and ``inferred`` are the run record's (``RunRecord``)."""
        return cls(
            question=answer.question,
            answer=answer.text,
            citations=[
                {"n": c.n, "source": c.source, "page": c.page, "url": c.url, "locator": c.locator}
                for c in (answer.citations if sources is None else sources)
            ],
            action=answer.action.value if answer.action is not None else None,
            rewritten=rewritten,
            evidence=[asdict(e) for e in evidence],
            refused=answer.refused,
            cancelled=cancelled,
            at=at,
            style=answer.style,
            model=model,
            dropped=answer.dropped_sentences,
            searched=searched,
            inferred=inferred,
            scope=list(scope) if scope is not None else None,
        )

    def evidence_items(self) -> list[Evidence]:
        """The stored evidence as Evidence values (files written before chunk ids were
        stored load with ``chunk_id=None``: the passage then shows the stored text)."""
        keys = Evidence.__dataclass_fields__.keys()
        return [Evidence(**{k: v for k, v in e.items() if k in keys}) for e in self.evidence]

    def chunk_id(self, n: int) -> str | None:
        return next((e.get("chunk_id") for e in self.evidence if e.get("n") == n), None)


@dataclass
class Conversation:
    id: str
    title: str = ""
    created: float = 0.0
    updated: float = 0.0
    turns: list[Turn] = field(default_factory=list)

    def pairs(self, limit: int | None = None) -> list[tuple[str, str]]:
        """(question, answer) pairs for the pipeline's follow-up rewriting (cancelled ones skipped)."""
        pairs = [(t.question, t.answer) for t in self.turns if t.answer and not t.cancelled]
        return pairs[-limit:] if limit else pairs

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "id": self.id,
            "title": self.title,
            "created": self.created,
            "updated": self.updated,
            "turns": [asdict(t) for t in self.turns],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conversation:
        known = Turn.__dataclass_fields__.keys()
        turns = [Turn(**{k: v for k, v in t.items() if k in known}) for t in data.get("turns", [])]
        return cls(
            id=str(data["id"]),
            title=str(data.get("title", "")),
            created=float(data.get("created", 0.0)),
            updated=float(data.get("updated", 0.0)),
            turns=turns,
        )


@dataclass(frozen=True)
class Damaged:
    """A conversation file that could not be read: listed, so the user can delete or fix it."""

    id: str
    path: Path
    error: str  # one line: the file and what is wrong


class History:
    """Create, list, load, append to and delete conversations in one folder."""

    def __init__(self, root: Path, clock: Callable[[], float] = time.time) -> None:
        self.root = Path(root)
        self.clock = clock

    def _path(self, conv_id: str) -> Path:
        if not _ID.match(conv_id):
            raise LocalcragError(f"not a conversation id: {conv_id!r}")
        return self.root / f"{conv_id}.json"

    def _new_id(self) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock()))
        return f"{stamp}-{secrets.token_hex(3)}"

    def save(self, conv: Conversation) -> Path:
        """Write atomically: a temporary file in the same folder, then os.replace."""
        path = self._path(conv.id)
        private_dir(self.root)
        write_private(path, json.dumps(conv.to_json(), ensure_ascii=False, indent=1))  # 0600
        return path

    def create(self, title: str = "") -> Conversation:
        now = self.clock()
        conv = Conversation(id=self._new_id(), title=title, created=now, updated=now)
        self.save(conv)
        return conv

    def load(self, conv_id: str) -> Conversation:
        path = self._path(conv_id)
        try:
            return Conversation.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise LocalcragError(f"conversation {conv_id} not found", "start a new one") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LocalcragError(
                f"{path}: damaged conversation file ({type(exc).__name__})",
                "delete it or start a new conversation",
            ) from exc

    def list(self) -> list[Conversation]:
        """Every readable conversation, most recently updated first."""
        return self.scan()[0]

    def scan(self) -> tuple[builtins.list[Conversation], builtins.list[Damaged]]:
        """(readable conversations, most recent first; damaged files, by name): a file that
        cannot be read is shown as damaged, never silently left out."""
        if not self.root.is_dir():
            return [], []
        good, bad = [], []
        for path in self.root.glob("*.json"):
            try:
                good.append(self.load(path.stem))
            except LocalcragError as exc:
                bad.append(Damaged(path.stem, path, str(exc)))
        good.sort(key=lambda c: (c.updated, c.id), reverse=True)
        return good, sorted(bad, key=lambda d: d.path.name)

    def last(self) -> Conversation | None:
        convs = self.list()
        return convs[0] if convs else None

    # The conversation that was open, kept in a pointer file: reopened on restart, rather
    # than whichever file was modified last. "" means a new, empty conversation was open.
    def set_current(self, conv_id: str | None) -> None:
        try:
            private_dir(self.root)
            write_private(self.root / CURRENT, conv_id or "")
        except OSError:
            pass  # only a convenience for the next start

    def current(self) -> Conversation | None:
        """The conversation open when the app last ran (None: a new one); the most recent one
        when no pointer was written yet or its file is gone."""
        try:
            conv_id = (self.root / CURRENT).read_text(encoding="utf-8").strip()
        except OSError:
            return self.last()
        if not conv_id:
            return None
        try:
            return self.load(conv_id)
        except LocalcragError:
            return self.last()

    def append(self, conv_id: str, turn: Turn) -> Conversation:
        conv = self.load(conv_id)
        turn.at = turn.at or self.clock()
        conv.turns.append(turn)
        conv.updated = turn.at
        if not conv.title:
            conv.title = self._distinct_title(title_for(turn.question), conv)
        self.save(conv)
        return conv

    def _distinct_title(self, title: str, conv: Conversation) -> str:
        """Two chats that open with the same question are told apart by when they began."""
        others = {c.title for c in self.list() if c.id != conv.id}
        if title not in others:
            return title
        when = time.localtime(conv.created or self.clock())
        for fmt in ("%b %d %H:%M", "%b %d %H:%M:%S"):
            dated = f"{title} · {time.strftime(fmt, when)}"
            if dated not in others:
                return dated
        return f"{title} · {conv.id}"

    def delete(self, conv_id: str) -> bool:
        try:
            self._path(conv_id).unlink()
            return True
        except FileNotFoundError:
            return False


def title_for(question: str) -> str:
    q = " ".join(question.split())
    return q if len(q) <= TITLE_CHARS else q[: TITLE_CHARS - 1].rstrip() + "…"
