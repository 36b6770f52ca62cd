"""Metrics, in plain numpy (no scikit-learn): ranking, ROC, SQuAD-style answer overlap,
the trust table's right / wrong verdict and the unsupported-words check.

It imports only the project's text toolkit (``localcrag.textutil``: words, stop words,
stems), never the pipeline's own checks, so the numbers can be checked by hand in tests.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Sequence

import numpy as np

from localcrag.textutil import ARTICLES, NUMBER_WORDS, dehyphenate, stem, term_spans

_ARTICLES = re.compile(r"\b(" + "|".join(sorted(ARTICLES)) + r")\b")
_PUNCT = str.maketrans("", "", string.punctuation + "\u2018\u2019\u201c\u201d")
_PUNCT_SPACE = str.maketrans({c: " " for c in string.punctuation + "\u2018\u2019\u201c\u201d"})


# --- ranking -------------------------------------------------------------------------------


def dedupe_units(ranked_units: Iterable[Sequence[Hashable]]) -> list[Hashable]:
    """Turn per-chunk unit lists (in rank order) into a ranking of distinct units.

    A unit's rank is that of its best chunk: max-aggregation of sub-chunks, so several
    chunks of one gold document never crowd the others out of the top k.
    """
    seen: dict[Hashable, None] = {}
    for units in ranked_units:
        for u in units:
            seen.setdefault(u, None)
    return list(seen)


def recall_at_k(ranking: Sequence[Hashable], gold: Iterable[Hashable], k: int) -> float | None:
    """Fraction of the gold units found in the top k; None when there is no gold."""
    g = set(gold)
    if not g:
        return None
    return len(g & set(ranking[:k])) / len(g)


def mrr_at_k(ranking: Sequence[Hashable], gold: Iterable[Hashable], k: int) -> float | None:
    """Reciprocal rank of the first gold unit within the top k (0 if none)."""
    g = set(gold)
    if not g:
        return None
    for i, u in enumerate(ranking[:k]):
        if u in g:
            return 1.0 / (i + 1)
    return 0.0


# --- ROC -------------------------------------------------------------------------------------


def roc_auc(pos: Sequence[float], neg: Sequence[float]) -> float | None:
    """P(score of a random positive > a random negative), ties counting one half.

    The Mann-Whitney U statistic via average ranks, so it is exact with ties.
    """
    p, n = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    if len(p) == 0 or len(n) == 0:
        return None
    allv = np.concatenate([p, n])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(len(allv), dtype=float)
    sorted_v = allv[order]
    i = 0
    while i < len(sorted_v):  # average ranks over ties
        j = i
        while j + 1 < len(sorted_v) and sorted_v[j + 1] == sorted_v[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    u = ranks[: len(p)].sum() - len(p) * (len(p) + 1) / 2.0
    return float(u / (len(p) * len(n)))


def roc_curve(pos: Sequence[float], neg: Sequence[float]) -> tuple[list[float], list[float]]:
    """(fpr, tpr) points for every distinct threshold, from (0, 0) to (1, 1)."""
    p, n = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    if len(p) == 0 or len(n) == 0:
        return [], []
    thresholds = np.unique(np.concatenate([p, n]))[::-1]
    fpr, tpr = [0.0], [0.0]
    for t in thresholds:
        tpr.append(float((p >= t).mean()))
        fpr.append(float((n >= t).mean()))
    return fpr, tpr


def threshold_accuracy(
    pos: Sequence[float], neg: Sequence[float], threshold: float
) -> float | None:
    """Accuracy of "relevant iff score >= threshold" over all pairs."""
    total = len(pos) + len(neg)
    if total == 0:
        return None
    right = sum(s >= threshold for s in pos) + sum(s < threshold for s in neg)
    return right / total


# --- answers ---------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _spaced(text: str) -> str:
    """``normalize_answer`` with punctuation read as a space, not deleted."""
    text = text.lower().translate(_PUNCT_SPACE)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _overlap(prediction: str, reference: str) -> tuple[int, int, int]:
    p, r = normalize_answer(prediction).split(), normalize_answer(reference).split()
    common = sum((Counter(p) & Counter(r)).values())
    return common, len(p), len(r)


def token_f1(prediction: str, references: Sequence[str]) -> float:
    """Best SQuAD token F1 over the references (0 with no references)."""
    best = 0.0
    for ref in references:
        common, n_p, n_r = _overlap(prediction, ref)
        if common == 0:
            continue
        prec, rec = common / n_p, common / n_r
        best = max(best, 2 * prec * rec / (prec + rec))
    return best


def token_recall(prediction: str, references: Sequence[str]) -> float:
    """Best fraction of a reference's tokens present in the prediction.

    Fairer than F1 to a long, correct answer around a short SQuAD span.
    """
    best = 0.0
    for ref in references:
        common, _, n_r = _overlap(prediction, ref)
        if n_r:
            best = max(best, common / n_r)
    return best


RECALL_RIGHT = 0.5  # token recall of the shortest reference at which an answer counts as right


def contains_reference(prediction: str, references: Sequence[str]) -> bool:
    """The trust table's "right": the answer contains a reference answer.

    Either a reference, SQuAD-normalised (lower case, no punctuation or articles), occurs in
    the normalised answer as a whole run of words, or the answer holds at least
    ``RECALL_RIGHT`` of the *shortest* reference's tokens (token recall, as
    :func:`token_recall`), or a reference figure written rounded is the answer's figure at
    that precision (:func:`_rounds_to`). False with no references.
    """
    refs = [r for r in references if normalize_answer(r)]
    if not refs:
        return False
    hay = f" {normalize_answer(prediction)} "
    if any(f" {normalize_answer(r)} " in hay for r in refs):
        return True
    # SQuAD's normalisation glues what punctuation joins ("arts!A5:F15" reads "artsa5f15",
    # a Markdown link its text and URL): a reference with letters is also looked for with
    # punctuation read as a space (not figures alone: "1.5" must not match "1-5 days")
    spaced = f" {_spaced(prediction)} "
    if any(re.search(r"[a-z]", _spaced(r)) and f" {_spaced(r)} " in spaced for r in refs):
        return True
    if any(_rounds_to(prediction, r) for r in refs):
        return True
    shortest = min(refs, key=lambda r: len(normalize_answer(r).split()))
    return token_recall(prediction, [shortest]) >= RECALL_RIGHT


_ROUNDED = re.compile(r"[-+]?\d+\.(\d+)(?:[eE]([-+]?\d+))?")  # "59.90", "3.02e-09"
_FIGURE = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.]?\d)")
PRECISE = 6  # significant digits from which an answer's figure is a computed value


def _significant(figure: str) -> int:
    """The significant digits a figure is written with ("0.7156" 4, "3.02e-09" 3)."""
    mantissa = re.split(r"[eE]", figure.lstrip("+-"))[0]
    return len(mantissa.replace(".", "").lstrip("0"))


def _rounds_to(prediction: str, reference: str) -> bool:
    """Does the answer give a reference written rounded ("59.90", "3.02e-09") as the value
    it was rounded from ("59.9022258996569", "3.016327243421154e-09")? Only for a figure
    of ``PRECISE`` significant digits or more, more than the reference has: a computed
    value, not another figure that rounds alike ("1.46" is no answer of "1.5")."""
    ref = _ROUNDED.fullmatch(reference.strip())
    if ref is None:
        return False  # a whole number is matched as written
    places, scientific = len(ref.group(1)), ref.group(2) is not None
    digits = _significant(reference.strip())
    want = float(reference)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", prediction)  # "1,890.408" as one figure
    for figure in _FIGURE.findall(text):
        if _significant(figure) < max(PRECISE, digits + 1):
            continue
        value = float(figure)
        if scientific and f"{value:.{digits - 1}e}" == f"{want:.{digits - 1}e}":
            return True
        if not scientific and f"{value:.{places}f}" == f"{want:.{places}f}":
            return True
    return False


# Outcomes of one question in the trust table (answered / refused against answerable / not).
RIGHT_ANSWER, WRONG_ANSWER, RIGHT_REFUSAL, WRONG_REFUSAL, UNJUDGED = (
    "right_answer",
    "wrong_answer",
    "right_refusal",
    "wrong_refusal",
    "unjudged",
)
OUTCOMES = (RIGHT_ANSWER, WRONG_ANSWER, RIGHT_REFUSAL, WRONG_REFUSAL, UNJUDGED)


def outcome(answer: str, refused: bool, answerable: bool, references: Sequence[str]) -> str:
    """One question's cell of the trust table.

    Refused: a right refusal when the question is unanswerable, else a wrong one. Answered:
    an unanswerable question is a wrong answer; an answerable one is right when it
    :func:`contains_reference`, wrong when not, and *unjudged* when it has no reference.
    """
    if refused:
        return WRONG_REFUSAL if answerable else RIGHT_REFUSAL
    if not answerable:
        return WRONG_ANSWER
    if not any(normalize_answer(r) for r in references):
        return UNJUDGED
    return RIGHT_ANSWER if contains_reference(answer, references) else WRONG_ANSWER


def trust_table(cells: Iterable[tuple[bool, str]]) -> dict:
    """Counts per outcome over (answerable, outcome) pairs, split by answerable, and the
    two headline rates: ``wrong_answer_rate`` = wrong answers / judged answers given (of the
    answers shown, how many are wrong), ``wrong_refusal_rate`` = wrong refusals / refusals
    (of the refusals shown, how many had an answer in the references). None when there is
    nothing to divide by."""
    out: dict[str, Counter[str]] = {"answerable": Counter(), "unanswerable": Counter()}
    for answerable, cell in cells:
        out["answerable" if answerable else "unanswerable"][cell] += 1
    both = out["answerable"] + out["unanswerable"]
    answers = both[RIGHT_ANSWER] + both[WRONG_ANSWER]
    refusals = both[RIGHT_REFUSAL] + both[WRONG_REFUSAL]
    table = {side: {"n": sum(c.values()), **{o: c[o] for o in OUTCOMES}} for side, c in out.items()}
    return {
        **table,
        **{o: both[o] for o in OUTCOMES},
        "wrong_answer_rate": rounded(both[WRONG_ANSWER] / answers) if answers else None,
        "wrong_refusal_rate": rounded(both[WRONG_REFUSAL] / refusals) if refusals else None,
    }


# --- unsupported words -----------------------------------------------------------------------
# The eval's check of what an answer says against what the generator saw. It is not the
# product's grounding check (crag/answer/grounding.py keeps a sentence whose numbers and names are
# in the evidence and more than half of whose content words are in one evidence sentence):
# here *every* content word of the answer must occur somewhere in the evidence, so a
# sentence the product lets through can still fail it.


def unsupported_words(answer: str, evidence: Sequence[str]) -> list[str]:
    """Content words of ``answer`` (numbers included) whose Porter stem occurs in no
    evidence text, in order, each once.

    The words are textutil's content words (``term_spans``: its one stop-word list, base
    forms), compared by Porter stem as ``textutil.content_words`` does, so "worked" is
    supported by "works" but "Osaka" only by "Osaka"; a number word meets its digits ("eight"
    = "8"). Citation markers [n] are ignored and
    a PDF's line-break hyphens joined on both sides.
    Empty: everything the answer says in content words, the evidence says too.
    """

    def stems_of(text: str) -> list[tuple[str, str]]:  # (word as written, its stem)
        text = dehyphenate(_CITATION.sub(" ", text))
        return [
            (text[a:b], str(_NUMBER_WORDS[base]) if base in _NUMBER_WORDS else stem(base))
            for base, a, b in term_spans(text)
            if len(base) > 1 or base.isdigit()
        ]

    seen = {s for text in evidence for _, s in stems_of(text)}
    missing: list[str] = []
    for w, s in stems_of(answer):
        if s not in seen and w not in missing:
            missing.append(w)
    return missing


# --- unsupported claims ----------------------------------------------------------------------
# Written apart from the product's grounding check (crag/answer/grounding.py) on purpose: a
# measurement must not grade itself. Rules are general English orthography, not words
# taken from any data set; the English word lists (number words, articles) are textutil's.

_CITATION = re.compile(r"\[\d+(?:\s*[,-]\s*\d+)*\]")
_LINE_BREAK_HYPHEN = re.compile(r"(\w)-\s*\n\s*(\w)")
_NUM = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_TOKEN = re.compile(r"\w+(?:['\u2019-]\w+)*")
_POSSESSIVE = re.compile(r"'s$")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?:;])[\"')\u201d\u2019]*\s+|\n+")
# English number words (textutil's one table) but "one": mostly a pronoun ("one of the",
# "the best one"); "a" is not one either.
_NUMBER_WORDS = {w: n for w, n in NUMBER_WORDS.items() if w != "one"}


def _numbers_in(text: str, words: dict[str, int] = _NUMBER_WORDS) -> set[str]:
    """Numbers as canonical digits: "1,000" -> "1000", "57,1" -> "57.1", "eight" -> "8"."""
    out = set()
    for n in _NUM.findall(text):
        n = n.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", n) else n
        out.add(n.rstrip(".").replace(",", "."))
    for t in _TOKEN.findall(text.lower()):
        if t in words:
            out.add(str(words[t]))
    return out


def _is_name(token: str, sentence_start: bool) -> bool:
    """A capitalised term: an acronym or mixed case anywhere ("BLEU", "GPT-3", "McDonald"),
    or a capitalised word that does not open its sentence ("... won by Raducanu")."""
    if not token[0].isupper() or token in ("I", "I'm", "I've", "I'll", "I'd"):
        return False
    inner_caps = any(c.isupper() for c in token[1:])
    return inner_caps if sentence_start else True


def _names_in(answer: str) -> list[str]:
    names = []
    for sentence in _SENTENCE_BREAK.split(answer):
        # markdown and list marks before the first word do not make it a name
        body = re.sub(r"^[\s>*_#`\"'(\u201c\u2018-]*(?:\d+[.)]\s+)?[*_]*", "", sentence)
        for i, m in enumerate(_TOKEN.finditer(body)):
            tok = m.group(0)
            if not tok[0].isdigit() and _is_name(tok, i == 0):
                names.append(tok)
    return names


def unsupported_terms(answer: str, evidence: Sequence[str]) -> list[str]:
    """Numbers and names (capitalised terms) of ``answer`` that no evidence text contains.

    Citation markers [n] and markdown emphasis are ignored; matching is case-insensitive on
    whole words, with a PDF's line-break hyphens joined and a possessive "'s" dropped
    ("Raducanu's" needs "Raducanu"). Empty: every number and name is in the evidence.
    """
    text = _CITATION.sub(" ", answer).replace("**", "").replace("__", "")
    text = re.sub(r"(?m)^\s*\d+[.)]\s+", "", text)  # numbered-list marks are not claims
    joined = "\n".join(evidence)
    ev_text = joined + "\n" + _LINE_BREAK_HYPHEN.sub(r"\1\2", joined)
    ev_tokens = {
        _POSSESSIVE.sub("", t.lower().replace("\u2019", "'")) for t in _TOKEN.findall(ev_text)
    }
    ev_tokens |= {part for t in ev_tokens for part in t.split("-")}
    ev_numbers = _numbers_in(ev_text, NUMBER_WORDS)  # the evidence's "one" supports a 1
    missing = [n for n in sorted(_numbers_in(text)) if n not in ev_numbers]
    for name in _names_in(text):
        low = _POSSESSIVE.sub("", name.lower().replace("\u2019", "'"))
        if low not in ev_tokens and name not in missing:
            missing.append(name)
    return missing


NGRAM = 6  # a reference answer longer than this "is seen" when any 6 of its words recur in order


def answer_seen(answers: Collection[str], texts: Collection[str], n: int = NGRAM) -> bool:
    """Whether a reference answer's text is in the texts (SQuAD normalisation: lower case,
    no punctuation or articles): a short answer whole, a long one by any n-word run of it."""
    hay = [f" {normalize_answer(t)} " for t in texts]
    for answer in answers:
        words = normalize_answer(answer).split()
        runs = [words] if len(words) <= n else [words[i : i + n] for i in range(len(words) - n + 1)]
        if words and any(f" {' '.join(r)} " in h for r in runs for h in hay):
            return True
    return False


# --- summaries -------------------------------------------------------------------------------


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that apply (None when none do)."""
    v = [x for x in values if x is not None]
    return float(np.mean(v)) if v else None


def percentile(values: Iterable[float | None], q: float) -> float | None:
    v = [x for x in values if x is not None]
    return float(np.percentile(v, q)) if v else None


def rounded(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(float(x), digits)
