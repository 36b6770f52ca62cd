"""Plain text, Markdown and HTML to (page number, paragraphs) with heading levels.

Stdlib only (html.parser), so these formats need no extra dependency. Markup is
reduced to readable text: headings become their own paragraphs, paragraph breaks are
kept, script/style and other non-content elements are dropped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from localcrag.ingest import about
from localcrag.ingest.files import Paragraphs, Read

_BLANK = re.compile(r"\n[ \t]*\n")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _title_like(para: str, following: str | None) -> bool:
    """A short single line, capitalised, without final punctuation, before body text."""
    p = para.strip()
    return (
        following is not None
        and "\n" not in p
        and 0 < len(p) <= 80
        and p[0].isupper()
        and p[-1] not in ".!?:;,"
        and len(following.strip()) > len(p)
        and not following.strip()[0].islower()
    )


_GLOSS = re.compile(r"^\s*[\w.()-]{1,30}\s+(?:-|–|:|=)\s+\S")  # "TERM - meaning"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _definitions(para: str) -> list[str]:
    """A definition list laid out by indentation (a term on its own line, its definition
    indented under it, as reStructuredText and many READMEs write variables) -> one
    paragraph per term, "hs_grad: Percent of population ...", so a definition is never read
    into the sentence before it; a glossary of "TERM - meaning" lines is a paragraph a line;
    any other paragraph is returned whole."""
    lines = [ln for ln in para.split("\n") if ln.strip()]
    if len(lines) >= 3 and all(_GLOSS.match(ln) for ln in lines):
        return [ln.strip() for ln in lines]  # "TOTEMP - Total Employment", one a line
    terms = [
        i
        for i, ln in enumerate(lines[:-1])
        if _indent(lines[i + 1]) > _indent(ln) and len(ln.split()) <= 4
    ]
    if len(terms) < 2:
        return [para]
    out, i = [], 0
    while i < len(lines):
        if i in terms:
            j = i + 1
            while j < len(lines) and _indent(lines[j]) > _indent(lines[i]):
                j += 1
            body = " ".join(ln.strip() for ln in lines[i + 1 : j])
            out.append(f"{lines[i].strip().rstrip(':')}: {body}")
            i = j
        else:
            out.append(lines[i].strip())
            i += 1
    return out


def text_pages(text: str) -> list[tuple[int, Paragraphs]]:
    """Form feeds separate pages; short title-like lines before a paragraph are headings;
    a definition list is a paragraph per term (``_definitions``)."""
    out = []
    for number, page in enumerate(_newlines(text).split("\f"), start=1):
        paras = [d for p in _BLANK.split(page) if p.strip() for d in _definitions(p)]
        nxt = paras[1:] + [None]
        out.append((number, [(p, 1 if _title_like(p, n) else None) for p, n in zip(paras, nxt)]))
    return out


def markdown_pages(text: str) -> list[tuple[int, Paragraphs]]:
    """ATX (``#``) and setext headings outside code fences; front matter is skipped."""
    text = _newlines(text).replace("\f", "\n")
    m = re.match(r"---\n.*?\n(?:---|\.\.\.)\n", text, re.S)
    if m:
        text = text[m.end() :]
    paras: Paragraphs = []
    cur: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if cur and "".join(cur).strip():
            paras.append(("\n".join(cur), None))
        cur.clear()

    for line in text.split("\n"):
        f = _FENCE.match(line)
        if fence:
            cur.append(line)
            fence = None if f and f.group(1) == fence else fence
        elif f:
            fence = f.group(1)
            cur.append(line)
        elif (h := _ATX.match(line)) and (h.group(2) or "").strip():
            flush()
            paras.append((h.group(2).strip(), len(h.group(1))))
        elif _SETEXT.match(line) and len(cur) == 1 and cur[0].strip():
            title = cur.pop().strip()
            paras.append((title, 1 if line.strip()[0] == "=" else 2))
        elif not line.strip():
            flush()
        else:
            cur.append(line)
    flush()
    return [(1, paras)]


_SKIP = {
    "script",
    "style",
    "noscript",
    "template",
    "head",
    "svg",
    "math",
    "nav",
    "iframe",
    "object",
}
_BLOCK = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "ul",
    "ol",
    "dl",
    "table",
    "blockquote",
    "pre",
    "figure",
    "figcaption",
    "form",
    "address",
    "details",
    "summary",
    "hr",
    "body",
    "fieldset",
    "caption",
}
_LINE = {"br", "li", "tr", "dt", "dd"}
_HEAD = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paras: Paragraphs = []
        self.lines: list[str] = []
        self.parts: list[str] = []  # the current line's pieces (joined once: += was quadratic)
        self.blank = True  # the current line holds only whitespace so far
        self.skip = 0
        self.pre = 0
        self.level: int | None = None
        self.title = ""
        self.in_title = False
        # a definition list's term, held until its definition starts: "term: definition" is
        # one line, as a codebook or glossary means it (a <dt> line alone binds nothing)
        self.term: str | None = None

    def _end_line(self) -> None:
        line = "".join(self.parts)
        if line.strip() not in ("", "-"):
            self.lines.append(line.rstrip() if self.pre else " ".join(line.split()))
        self.parts, self.blank = [], True

    def _end_para(self) -> None:
        self._end_line()
        if self.lines:
            self.paras.append(("\n".join(self.lines), self.level))
        self.lines = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "title":
            self.in_title = True
        if tag in _SKIP:
            self.skip += 1
        elif self.skip:
            return
        elif tag in _HEAD:
            self._end_para()
            self.level = _HEAD[tag]
        elif tag in _BLOCK:
            self._end_para()
            self.pre += tag == "pre"
        elif tag == "dt":
            self._flush_term()
            self._end_line()
        elif tag in _LINE:
            self._end_line()
            self._add("- " if tag == "li" else "")
        elif tag in ("td", "th") and not self.blank:
            self._add(" | ")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if not self.skip and tag in _LINE | _BLOCK:
            self._end_line() if tag in _LINE else self._end_para()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif self.skip:
            return
        elif tag in _HEAD:
            self._end_para()
            self.level = None
        elif tag == "dt":
            term = " ".join("".join(self.parts).split())
            self.parts, self.blank = [], True
            self.term = term or None
        elif tag in ("dd", "dl"):
            self._flush_term()
            if tag == "dl":
                self._end_para()
        elif tag in _BLOCK:
            self._end_para()
            self.pre = max(0, self.pre - (tag == "pre"))

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
        if self.skip:
            return
        if self.pre:
            parts = data.split("\n")
            for i, part in enumerate(parts):
                if i:
                    self._end_line()
                self._add(part)
        else:
            self._add(data)

    def _flush_term(self) -> None:
        """A term whose definition never came: a line of its own."""
        if self.term is not None:
            term, self.term = self.term, None
            self._end_line()
            self._add(term)
            self._end_line()

    def _add(self, text: str) -> None:
        if self.term is not None and text.strip():
            term, self.term = self.term, None
            self.parts.append(f"{term}: ")
            text = text.lstrip()
        self.parts.append(text)
        self.blank = self.blank and not text.strip()


def html_pages(text: str) -> list[tuple[int, Paragraphs]]:
    """h1-h6 become headings; the <title> leads when the page has no h1."""
    return _html(text)[0]


def _html(text: str) -> tuple[list[tuple[int, Paragraphs]], str]:
    """The page (see ``html_pages``) and its <title>."""
    p = _HTMLText()
    p.feed(text)
    p.close()
    p._end_para()
    paras = p.paras
    title = " ".join(p.title.split())
    if title and not any(level == 1 for _, level in paras):
        paras = [(title, 1)] + paras
    return [(1, paras)], title


def declared_charset(data: bytes) -> str | None:
    """The charset an HTML file declares in its first 4 KB, if any."""
    m = re.search(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", data[:4096], re.I)
    return m.group(1).decode("ascii") if m else None


# --- readers registered in ingest/formats.py ---------------------------------------------


def _text(path: Path, data: bytes, ctx: Any, declared: str | None = None) -> tuple[str, list[str]]:
    from localcrag.ingest.files import decode
    from localcrag.ingest.limits import check_chars

    text, warnings = decode(path, data, declared)
    check_chars(path, len(text), ctx.limits)
    return text, warnings


def read_plain(path: Path, data: bytes, ctx: Any) -> tuple[list, list[str]]:
    text, warnings = _text(path, data, ctx)
    return text_pages(text), warnings


def read_markdown(path: Path, data: bytes, ctx: Any) -> tuple[list, list[str]]:
    text, warnings = _text(path, data, ctx)
    return markdown_pages(text), warnings


def read_html(path: Path, data: bytes, ctx: Any) -> Read:
    text, warnings = _text(path, data, ctx, declared_charset(data))
    pages, title = _html(text)
    return Read(pages, warnings, about.make(path, title))
