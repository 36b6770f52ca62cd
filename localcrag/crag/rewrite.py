"""Question rewriting: web queries and standalone follow-ups, LLM first, rules as fallback.

Privacy rule: a web query is derived from the user's question only, never from document
text, so nothing from a private file leaves the machine. For the same reason the follow-up
rewriter sees previous *questions* only, not previous answers (answers quote documents).

Small local models often answer "Sure! Here is..." or drift off topic, so every LLM output
is validated and a deterministic rule-based rewrite is used when it fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from localcrag.crag.ellipsis import complete, elliptical, resolve_it
from localcrag.llm.chat import ChatModel, Sampling
from localcrag.llm.failover import joined
from localcrag.textutil import (
    BE_FORMS,
    POSSESSIVES,
    PRONOUNS,
    STOPWORDS,
    content_words,
    stem,
    unspaced,
)
from localcrag.textutil.pos import is_noun, verb_form

# Words of asking, chit-chat and "the document" itself: no use in a web query or as a topic.
ASKING = frozenset(
    """please tell explain describe define give show list summarize summarise know want need
    find get whats hows let lets something anything thing things kind sort way ways really ok
    okay hi hello thanks thank mean means meant document documents paper pdf file""".split()
)
STOP_WORDS = STOPWORDS | ASKING
AUXILIARIES = frozenset(
    "is are was were has have had will would does did".split()
)  # sentence, not query
# what can point back to an earlier question: the pronouns, and words that stand for a noun
REFERRING = PRONOUNS | frozenset("it's there former latter same one ones".split())
# A question whose only content word is one of these asks about the earlier topic.
GENERIC_FOLLOW_UPS = frozenset(
    "details detail example examples explain explanation elaborate more else reason reasons "
    "source sources summary summarize summarise pros cons advantages disadvantages benefits "
    "drawbacks risks steps limitations alternatives differences why how when where who".split()
)
FOLLOW_UP_OPENERS = (
    "and ",
    "but ",
    "also ",
    "so ",
    "what about",
    "how about",
    "what else",
    "why not",
    "then ",
)
JUNK_PREFIXES = (
    "sure",
    "here is",
    "here's",
    "here are",
    "certainly",
    "of course",
    "okay",
    "ok,",
    "i ",
    "i'm",
    "as an",
    "the search query",
    "search query is",
    "the query",
)
LABEL = re.compile(r"^(?:web\s+)?(?:search\s+)?(?:query|question|standalone question)\s*:\s*", re.I)
QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-\.+#]*")


def _clean_word(w: str) -> str:
    w = re.sub(r"['’]s$", "", w.rstrip("-'’"))
    return w if re.fullmatch(r"(?:[A-Za-z]\.){2,}", w) else w.rstrip(".-'’")


def _content_words(text: str) -> set[str]:
    """Stems of the content words (asking words dropped too), for overlap checks."""
    return content_words(text, STOP_WORDS)


def keyword_query(question: str, max_words: int = 8) -> str:
    """Deterministic web query: quoted phrases and content words, in question order.

    When there are more than ``max_words`` words, quoted phrases and names (capitalised
    mid-sentence, acronyms, words with digits, identifiers like llama.cpp or C++) are kept
    first; the output stays in question order.
    """
    text = " ".join((question or "").split())
    items: list[tuple[int, str, int, int]] = []  # (position, text, priority, n_words)
    taken: list[tuple[int, int]] = []
    for m in QUOTED.finditer(text):
        phrase = " ".join((m.group(1) or m.group(2)).split())
        items.append((m.start(), f'"{phrase}"', 2, len(phrase.split())))
        taken.append(m.span())
    seen: set[str] = set()
    for m in WORD.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        w = _clean_word(m.group())
        low = w.lower()
        if not w or low in STOP_WORDS or low in seen or (len(w) == 1 and not w.isdigit()):
            continue
        seen.add(low)
        sentence_start = m.start() == 0 or text[: m.start()].rstrip().endswith((".", "?", "!", ":"))
        name = (
            (w[0].isupper() and not sentence_start)
            or (w.isupper() and len(w) > 1)
            or any(c.isdigit() or c in "._+#" for c in w)
            or any(c.isupper() for c in w[1:])
        )
        items.append((m.start(), w, 1 if name else 0, 1))
    if not items:  # only stop words: keep the question's own words rather than nothing
        words = [w for w in (_clean_word(m.group()) for m in WORD.finditer(text)) if w]
        return " ".join(words[:max_words])
    chosen, budget = [], max_words
    for item in sorted(items, key=lambda it: (-it[2], it[0])):
        if item[3] <= budget:
            chosen.append(item)
            budget -= item[3]
    return " ".join(it[1] for it in sorted(chosen))


def _validate(
    output: str, reference: str, max_words: int, max_new: int, is_query: bool
) -> str | None:
    """The cleaned LLM output, or None if it is junk.

    Junk: chatter ("Sure, here is"), several lines, markup, too long, off topic (no content
    word shared with ``reference``), or an answer in disguise: small models often reply
    "X was won by Germany" or "... is 100.0 Celsius", so more than ``max_new`` new content
    words, any new number, or (for a query) a sentence (an auxiliary verb, or over a third
    stop words) is rejected.
    """
    text = (output or "").strip()
    if not text or "\n" in text or len(text) > 300:
        return None
    text = LABEL.sub("", text).strip().rstrip(".").strip()
    if len(text) >= 2 and text[0] in "\"'“" and text[-1] in "\"'”":
        text = text[1:-1].strip().rstrip(".").strip()
    low = text.lower()
    if not text or low.startswith(JUNK_PREFIXES) or any(c in text for c in "<>{}[]|`*()"):
        return None
    if is_query and any(c in text for c in '"“”'):
        return None
    words = text.split()
    if "http" in low or len(words) > max_words:
        return None
    mine, theirs = _content_words(text), _content_words(reference)
    new = mine - theirs
    if not (mine & theirs) or len(new) > max_new or any(c.isdigit() for w in new for c in w):
        return None
    lowered = [_clean_word(w).lower() for w in words]
    if is_query and (
        3 * sum(w in STOP_WORDS for w in lowered) > len(words) or AUXILIARIES & set(lowered)
    ):
        return None
    return text


def _ask(
    llm: ChatModel, system: str, shots: list[tuple[str, str]], user: str, max_tokens: int
) -> str:
    """One greedy completion, ended by a blank line.

    Few-shot turns matter: without them a 135M model answers the question instead.
    """
    messages = [{"role": "system", "content": system}]
    for asked, replied in shots:
        messages += [{"role": "user", "content": asked}, {"role": "assistant", "content": replied}]
    messages.append({"role": "user", "content": user})
    parts = llm.stream(llm.chat_prompt(messages), max_tokens, Sampling(stop=("\n\n",)))
    return joined(parts)  # a server that died mid-rewrite: its fragment is withdrawn


WEB_SYSTEM = (
    "You turn a question into a short web search query. Reply with the query only: "
    "3 to 8 keywords, no quotes, no explanation."
)
WEB_SHOTS = [
    ("Question: How tall is the Eiffel Tower in metres?", "Eiffel Tower height metres"),
    ("Question: Which enzyme breaks down lactose in the gut?", "enzyme lactose digestion"),
]


def rewrite_for_web(question: str, llm: ChatModel | None = None) -> str:
    """A short web query for ``question``: the llm's if it passes validation, else keywords."""
    fallback = keyword_query(question)
    if llm is None or not question.strip():
        return fallback
    try:
        out = _ask(llm, WEB_SYSTEM, WEB_SHOTS, f"Question: {question.strip()}", max_tokens=24)
    except Exception:  # noqa: BLE001 - a failing model must not stop the web step
        return fallback
    return _validate(out, question, max_words=12, max_new=1, is_query=True) or fallback


# Where a sentence opens a new clause: a pronoun after one of these can point back to a noun
# of an earlier clause of the same question (grammar, not topic words).
CLAUSE_BREAK = re.compile(
    r"[,;:\u2014]|\b(?:and|but|or|so|because|since|while|whereas|although|though|"
    r"if|when|whenever|then|which|where|why|how|what|who)\b",
    re.I,
)


def _unresolved_pronoun(question: str) -> bool:
    """True if a pronoun has no possible referent inside the question itself.

    The method is clause-level anaphora: a question is split into clauses at punctuation
    and conjunctions/wh-words; a pronoun in a later clause is taken to refer to a noun of an
    earlier clause when that clause has a content word of its own ("What is label smoothing
    and why is it used?"). A pronoun in the first clause ("How big is it?") or after clauses
    without content ("Why is it used?") needs the conversation. Two grammatical uses are not
    references at all: existential "there" next to a form of "be" ("Is there a limit?") and
    "that"/"which" right after a content word (a relative clause: "a model that learns").
    """
    # a capitalised word inside the question is part of a name ("HackRF One", "Square
    # Enix's The Last One"), not the pronoun "one"
    named = re.sub(
        r"(?<=\S)(\s+)([A-Z][a-z'’]*)\b",
        lambda m: (
            m.group(1)
            + ("Name" if re.sub(r"['’]s$", "", m.group(2)).lower() in REFERRING else m.group(2))
        ),
        question.strip(),
    )
    low = " ".join(named.lower().split())
    start, seen_content = 0, False
    spans = [m.start() for m in CLAUSE_BREAK.finditer(low)] + [len(low)]
    for end in spans:
        clause = low[start:end]
        words = [_clean_word(w) for w in WORD.findall(clause)]
        for i, w in enumerate(words):
            if w not in REFERRING:
                continue
            before, after = words[i - 1] if i else "", words[i + 1] if i + 1 < len(words) else ""
            if w == "there" and (before in BE_FORMS or after in BE_FORMS):
                continue
            if w in ("that", "which") and before and _content_words(before):
                continue
            if _refers_within(words, i):
                continue
            if not seen_content:
                return True
        seen_content = seen_content or bool(_content_words(clause) - _generic_stems())
        start = end
    return False


# a pronoun that opens a clause of its own, or owns a noun, after a noun of its clause
_SUBJECTS = frozenset("it they he she".split())
_OWNERS = PRONOUNS & POSSESSIVES  # third person: what can point back
_FINITE = BE_FORMS | frozenset(
    "do does did has have had can could will would should may might must".split()
)


def _refers_within(words: list[str], i: int) -> bool:
    """Does the pronoun ``words[i]`` point back to a noun earlier in its own clause? A
    subject pronoun before its verb ("the part of the year they were a resident alien")
    or an owner before its noun ("did the company release its first product") does, when a
    noun comes before it; one that only follows a verb or a preposition ("tell me more
    about its size") has nothing to point back to."""
    w, after = words[i], words[i + 1] if i + 1 < len(words) else ""
    opens = w in _OWNERS or (w in _SUBJECTS and (after in _FINITE or verb_form(after)))
    return opens and any(_content_words(w2) and is_noun(words, k) for k, w2 in enumerate(words[:i]))


def _generic_stems() -> set[str]:
    return {stem(w) for w in GENERIC_FOLLOW_UPS} | set(GENERIC_FOLLOW_UPS)


def needs_context(question: str) -> bool:
    """True if the question cannot be resolved alone: a pronoun with no referent inside the
    question (see _unresolved_pronoun), an "and/what about" opener, no content word of its
    own ("Why?"), or only a generic one ("More details?", "Pros and cons?"). "What is a
    cobot?" names its own subject, and so does "What is X and why is it used?". A question
    in a script written without spaces is never judged so: its words cannot be read."""
    if unspaced(question):  # its words cannot be told apart ("歌山镇农贸市场..."): no fragment
        return False
    low = " ".join(question.lower().split())
    if low.startswith(FOLLOW_UP_OPENERS) or _unresolved_pronoun(question):
        return True
    content = _content_words(question)
    return not content or content <= _generic_stems()  # nothing but generic words: "Pros and cons?"


STANDALONE_SYSTEM = (
    "Rewrite the user's follow-up question so it can be understood without the earlier "
    "questions. Replace pronouns with what they refer to. Reply with the question only."
)
STANDALONE_SHOTS = [
    (
        "Earlier questions:\n- What is the capital of Australia?\nFollow-up: How big is it?",
        "How big is Canberra, the capital of Australia?",
    ),
    (
        "Earlier questions:\n- How does photosynthesis work?\nFollow-up: And in cacti?",
        "How does photosynthesis work in cacti?",
    ),
]


def _fallback_standalone(question: str, previous: Iterable[str]) -> str:
    """Heuristic: append the key words (keyword_query) of the latest earlier question that
    has any, in parentheses, e.g. "What about its size?" + "How does LanceDB store
    vectors?" -> "What about its size (LanceDB store vectors)?". No POS tagger is needed:
    content words of a question are mostly its nouns and names."""
    have = _content_words(question)
    for prev in previous:
        extra = [w for w in keyword_query(prev, max_words=6).split() if _content_words(w) - have]
        if extra:
            base = question.strip().rstrip("?").rstrip()
            return f"{base} ({' '.join(extra)})?"
    return question


def _keeps_follow_up(rewritten: str, question: str, previous: list[str]) -> bool:
    """The rewrite keeps the follow-up's own content and is not a verbatim repeat."""
    seen = {p.lower().strip().rstrip("?") for p in [question, *previous]}
    if rewritten.lower().rstrip("?") in seen:
        return False
    own = _content_words(question)
    return not own or bool(own & _content_words(rewritten))


def standalone_question(
    question: str,
    history: list[tuple[str, str]],
    llm: ChatModel | None = None,
    rules_first: bool = False,
) -> str:
    """Rewrite a follow-up into a standalone question; ``history`` is [(question, answer)].

    Unchanged when there is no history or no follow-up cue. An elliptical follow-up ("And
    the decoder?") is completed from the latest question by grammar (``ellipsis.py``); with
    ``rules_first`` (a small model, which mostly repeats the earlier question and costs
    seconds) so is a lone "it" ("How much did it cost?"). Otherwise only earlier questions are
    shown to the llm (see module docstring); its output must be one line, at most 40 words,
    share a content word with them and add at most 3 new words (see _validate), keep one of
    the follow-up's own content words, and not merely repeat the follow-up or an earlier
    question (a 135M model often does).
    """
    question = " ".join((question or "").split())
    previous = [q for q, _ in reversed(history or []) if q and q.strip()]
    if not question or not previous or not needs_context(question):
        return question
    if (whole := complete(question, previous[0])) is not None:
        return whole  # "And the decoder?": grammar completes it, no model needed
    if rules_first and (whole := resolve_it(question, previous[0])) is not None:
        return whole  # a small model: "it" is the earlier question's last noun phrase
    if rules_first and elliptical(question) is not None:
        # a phrase grammar could not place (two earlier phrases it might replace): a small
        # model guesses worse ("What is the t-stat test? And what about the two-tailed
        # p-value?"); the keywords keep the follow-up's own phrase and the earlier topic
        return _fallback_standalone(question, previous)
    if llm is not None:
        shown = "\n".join(f"- {q.strip()}" for q in reversed(previous[:3]))
        user = f"Earlier questions:\n{shown}\nFollow-up: {question}"
        try:
            out = _ask(llm, STANDALONE_SYSTEM, STANDALONE_SHOTS, user, max_tokens=64)
        except Exception:  # noqa: BLE001
            out = ""
        good = _validate(
            out, " ".join([question, *previous[:3]]), max_words=40, max_new=3, is_query=False
        )
        if good and _keeps_follow_up(good, question, previous):
            return good if good.endswith("?") else good + "?"
    return _fallback_standalone(question, previous)
