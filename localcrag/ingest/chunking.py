"""Token-bounded chunking (sentences come from :func:`localcrag.textutil.split_sentences`).

Chunks follow the document's structure: a heading starts a new chunk, paragraph breaks
are preferred break points, and sentences are never cut unless one alone exceeds the
budget (then it is split on word boundaries, so nothing is silently truncated by the
embedder). Budgets are measured in the embedder's own tokens, special tokens included.

Offsets: ``char_start``/``char_end`` index the document's joined text
(:attr:`localcrag.ingest.parse.ParsedDoc.text`: page texts joined with ``"\\n\\n"``), and
``chunk.text == doc.text[chunk.char_start:chunk.char_end]`` always holds.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence

from localcrag.ingest.parse import PAGE_SEP, ParsedDoc
from localcrag.textutil import TERMINAL, split_sentences
from localcrag.types import Chunk, Page

_WORD = re.compile(r"\S+")
_BLANK = re.compile(r"\n[ \t]*\n")


# --- token counting -------------------------------------------------------------------

Counter = Callable[[list[str]], list[int]] | Callable[[str], int]


COUNT_CHARS = 200_000  # characters per tokenizer call: its encodings cost ~100x the text


def _batch(count_tokens: Counter) -> Callable[[list[str]], list[int]]:
    """Accept a batch counter (list -> list) or a single one (str -> int); calls it on
    slices of at most COUNT_CHARS characters, so memory does not grow with the document."""

    def counted(texts: list[str]) -> list[int]:
        out: list[int] = []
        at = 0
        while at < len(texts):
            end, size = at, 0
            while end < len(texts) and (end == at or size + len(texts[end]) <= COUNT_CHARS):
                size += len(texts[end])
                end += 1
            out.extend(one_call(texts[at:end]))
            at = end
        return out

    def one_call(texts: list[str]) -> list[int]:
        if not texts:
            return []
        try:
            out = count_tokens(texts)  # type: ignore[arg-type]
        except (TypeError, AttributeError):
            out = None
        if isinstance(out, (list, tuple)) and len(out) == len(texts):
            return [int(n) for n in out]
        return [int(count_tokens(t)) for t in texts]  # type: ignore[arg-type]

    return counted


# --- chunking ---------------------------------------------------------------------------


def chunk_pages(
    doc: ParsedDoc | Sequence[Page],
    count_tokens: Counter,
    max_tokens: int,
    overlap_sentences: int,
    doc_id: str,
    source: str,
) -> list[Chunk]:
    """Split a parsed document into chunks of at most ``max_tokens`` embedder tokens.

    Each sentence is counted once (one batch call); a chunk's size is estimated as the
    sum of its sentences' tokens plus the special tokens, then every chunk is verified
    with one more batch count and re-split if the estimate was short.
    """
    if not isinstance(doc, ParsedDoc):
        doc = ParsedDoc.from_pages(list(doc))
    count = _batch(count_tokens)
    special = count([""])[0]
    budget = max_tokens - special
    if budget < 1:
        raise ValueError(f"max_tokens={max_tokens} leaves no room beside {special} special tokens")
    text = doc.text
    work = _joined_sentences(doc)
    spans = split_sentences(work)
    tokens = [n - special for n in count([text[a:b] for a, b in spans])]
    units = _fit_units(
        text, spans, tokens, budget, count, special, budget // 8 if overlap_sentences else 0
    )
    sections = _sections(doc, work, units, budget)
    packed = [
        (head, part) for head, us in sections for part in _pack(us, budget, overlap_sentences)
    ]
    spans_out = _verify(text, packed, max_tokens, count, special)
    return _make_chunks(doc, spans_out, doc_id, source)


def _joined_sentences(doc: ParsedDoc) -> str:
    """A same-length copy of the text where a sentence running over a page break is
    joined (that ``"\\n\\n"`` page separator becomes two spaces)."""
    text, parts, prev = doc.text, [], 0
    for start in doc.page_starts[1:]:
        sep = start - len(PAGE_SEP)  # page texts are stripped: text[sep - 1] is a character
        if text[sep - 1] not in TERMINAL and text[start : start + 1].islower():
            parts += [text[prev:sep], " " * len(PAGE_SEP)]
            prev = start
    return "".join(parts + [text[prev:]]) if parts else text


Unit = tuple[int, int, int, int]  # start, end, content tokens, paragraph id


def _fit_units(
    text: str,
    spans: list[tuple[int, int]],
    tokens: list[int],
    budget: int,
    count: Callable[[list[str]], list[int]],
    special: int,
    lap: int = 0,
) -> list[tuple[int, int, int]]:
    """Sentences as (start, end, tokens); any sentence over budget is cut on word
    boundaries (one batch count for its words), a giant word on characters. With ``lap``,
    each piece of a cut sentence starts with the last ``lap`` tokens of the piece before,
    so a fact that straddles a cut is whole in one of them (a one-line file has no sentence
    ends to break at)."""
    units: list[tuple[int, int, int]] = []
    before: list[tuple[int, int, int]] = []  # the last piece's words of a cut sentence just before
    for (a, b), n in zip(spans, tokens):
        if n <= budget:
            i, extra = len(before), 0  # after a sentence cut for length: reach back into it too
            while (
                i > 1 and n + extra + before[i - 1][2] <= budget and extra + before[i - 1][2] <= lap
            ):
                i, extra = i - 1, extra + before[i - 1][2]
            units.append((before[i][0] if extra else a, b, n + extra))
            before = []
            continue
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, a, b)]
        sized = before + [
            (x, y, k - special) for (x, y), k in zip(words, count([text[x:y] for x, y in words]))
        ]
        out: list[tuple[int, int, int]] = [(0, 0, 0)] if before else []  # (a placeholder for it)
        firsts: list[int] = [0] if before else []  # index in ``sized`` of each piece's first word
        for i, (x, y, k) in enumerate(sized):
            if i < len(before):
                continue
            if k > budget - lap:
                out.extend(_split_chars(text, x, y, budget, count, special))
                firsts.extend([i] * (len(out) - len(firsts)))
            elif out and len(firsts) > bool(before) and out[-1][2] + k <= budget - lap:
                out[-1] = (out[-1][0], y, out[-1][2] + k)
            else:
                out.append((x, y, k))
                firsts.append(i)
        for j in range(1, len(out) if lap else 0):  # reach back into the piece before
            i, extra = firsts[j], 0
            while i > firsts[j - 1] + 1 and extra + sized[i - 1][2] <= lap:
                i, extra = i - 1, extra + sized[i - 1][2]
            out[j] = (sized[i][0], out[j][1], out[j][2] + extra)
        units.extend(out[1:] if before else out)
        start = next((i for i, w in enumerate(sized) if w[0] == out[-1][0]), firsts[-1])
        before = sized[start:] if lap else []  # a sentence cut for length goes on in the next span
    return units


def _split_chars(
    text: str, a: int, b: int, budget: int, count: Callable[[list[str]], list[int]], special: int
) -> list[tuple[int, int, int]]:
    """Halve a word until every piece fits (pathological inputs: base64, long URLs)."""
    n = count([text[a:b]])[0] - special
    if n <= budget or b - a <= 1:
        return [(a, b, n)]
    mid = (a + b) // 2
    return _split_chars(text, a, mid, budget, count, special) + _split_chars(
        text, mid, b, budget, count, special
    )


Section = tuple[int | None, list[Unit]]  # heading offset (None: preamble), units


def _sections(
    doc: ParsedDoc, work: str, units: list[tuple[int, int, int]], budget: int
) -> list[Section]:
    """Group units by heading. A section holding only its heading line, or a tiny intro
    (< budget/8 tokens) followed by a subsection, is carried into the next section (the
    previous one at the end) instead of becoming a tiny chunk of its own."""
    offsets = [h.offset for h in doc.headings]
    level = {h.offset: h.level for h in doc.headings}
    raw: list[tuple[int | None, list[Unit]]] = []
    para, prev_end, cur_sec = 0, None, -2
    cur_table = False
    for a, b, n in units:
        sec = bisect_right(offsets, a) - 1
        table = doc.unit_at(a) == "table"  # a table never shares a chunk with the text around it
        if prev_end is not None and (
            sec != cur_sec or table != cur_table or _BLANK.search(work, prev_end, a)
        ):
            para += 1
        if sec != cur_sec:
            raw.append((offsets[sec] if sec >= 0 else None, []))
        elif table != cur_table:
            raw.append((None, []))  # the same section continued: no heading of its own to carry
        cur_sec, cur_table = sec, table
        raw[-1][1].append((a, b, n, para))
        prev_end = b
    out: list[Section] = []
    carry: list[Unit] = []
    for i, (head, us) in enumerate(raw):
        own, us = us, carry + us
        nxt = raw[i + 1][0] if i + 1 < len(raw) else None
        heading_only = head is not None and all(u[3] == own[-1][3] for u in own)
        intro = (
            head is not None
            and nxt is not None
            and level[nxt] > level[head]
            and sum(u[2] for u in us) < budget // 8
        )
        carry = us if heading_only or intro else []
        if not carry:
            out.append((head, us))
    if carry:
        if out:
            out[-1] = (out[-1][0], out[-1][1] + carry)
        else:
            out.append((None, carry))
    return out


def _pack(units: list[Unit], budget: int, overlap: int) -> list[list[Unit]]:
    """Greedy packing; a new paragraph that will not fit starts a new chunk once the
    current one is half full; ``overlap`` trailing sentences are repeated."""
    para_tok: dict[int, int] = {}
    for u in units:
        para_tok[u[3]] = para_tok.get(u[3], 0) + u[2]
    out: list[list[Unit]] = []
    cur: list[Unit] = []
    tot = 0
    for u in units:
        soft = (
            bool(cur) and u[3] != cur[-1][3] and 2 * tot >= budget and tot + para_tok[u[3]] > budget
        )
        if cur and (tot + u[2] > budget or soft):
            out.append(cur)
            keep = cur[max(1, len(cur) - overlap) :] if overlap > 0 else []
            while keep and sum(k[2] for k in keep) + u[2] > budget:
                keep = keep[1:]
            cur, tot = list(keep), sum(k[2] for k in keep)
        cur.append(u)
        tot += u[2]
    if cur:
        out.append(cur)
    return out


def _verify(
    text: str,
    packed: list[tuple[int | None, list[Unit]]],
    max_tokens: int,
    count: Callable[[list[str]], list[int]],
    special: int,
    depth: int = 0,
) -> list[tuple[int | None, int, int, int]]:
    """Count every chunk for real; re-split those the estimate got wrong."""
    real = count([text[us[0][0] : us[-1][1]] for _, us in packed])
    out: list[tuple[int | None, int, int, int]] = []
    for (head, us), n in zip(packed, real):
        if n <= max_tokens or depth > 8 or us[-1][1] - us[0][0] <= 1:
            out.append((head, us[0][0], us[-1][1], n))
            continue
        excess = n - max_tokens
        budget = max(1, sum(u[2] for u in us) - excess)
        if len(us) > 1:
            parts = _pack(us, budget, 0)
        else:
            a, b, t, p = us[0]
            bits = _fit_units(text, [(a, b)], [t + excess], budget, count, special)
            parts = [[(x, y, m, p)] for x, y, m in bits]
        out.extend(
            _verify(text, [(head, part) for part in parts], max_tokens, count, special, depth + 1)
        )
    return out


def _make_chunks(
    doc: ParsedDoc, spans: list[tuple[int | None, int, int, int]], doc_id: str, source: str
) -> list[Chunk]:
    """Chunks with page span, locator and heading in force (a section's own heading for a
    chunk that begins with carried-over heading lines)."""
    return [
        Chunk(
            f"{doc_id}-{i:05d}",
            source,
            doc.text[a:b],
            doc.page_at(a),
            doc.page_at(b - 1),
            a,
            b,
            doc.context_at(a if head is None else max(head, a)),
            n,
            doc.locator(a, b, None if head is None else max(head, a)),
        )
        for i, (head, a, b, n) in enumerate(spans)
    ]
