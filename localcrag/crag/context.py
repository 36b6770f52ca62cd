"""A sentence read in its context: the question terms its section has already named.

Writers name a subject once and then drop it: under "Residual Dropout", "We apply dropout
to the output of each sub-layer ... For the base model, we use a rate of 0.1." The last
sentence answers "What dropout rate was used for the base model?" but does not repeat
"dropout", so a ranking by the sentence's own words prefers a sentence elsewhere that does
("The big model used dropout rate 0.1, instead of 0.3").

So when an extractive answer counts which question terms a sentence covers, a term the
sentence lacks still counts, at a discount, if one of the ``REACH`` sentences before it in
the same evidence text names it: ``DISCOUNT`` for the sentence just before, ``DISCOUNT``
squared for the one before that. A heading (a title line without a stop) sets the subject
of what follows it and is read as context, but the window does not reach past it: what
comes before a heading belongs to another section. Only the sentence itself is quoted.

Measured and OFF by default (``DISCOUNT = 0``): on the seed-0 40 anthropic-docs questions
(the fitting slice) every variant of discount 0.25 / 0.5 / 0.75, reach 1 / 2, with or
without ``LEAD_ONLY`` and ``GRADE_CONTEXT`` (the grader reads the sentence with its
predecessor) landed within 0.006 answer F1 of no context (0.351, in-sample); the best,
discount 0.25, reach 1, lead only (0.353), lowered held-out F1 (anthropic-docs items 41-100
CRAG 0.309 -> 0.299, val.json 0.473 -> 0.425, SQuAD unchanged). ``scripts/context_fit.py``
and docs/eval.md have the commands. It stays as a tested option, not as the default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from localcrag.textutil import STOPWORDS, TERMINAL

DISCOUNT = 0.0  # off: see above; 0.25 with REACH 1 was the in-sample choice
REACH = 1
GRADE_CONTEXT = False  # the grader reads such a sentence with the one before it
LEAD_ONLY = True  # context picks the lead sentence; a second one is added on its own words


def context_credit(own: Sequence[set[str]], headings: Sequence[bool], asked: set[str],
                   discount: float = DISCOUNT, reach: int = REACH) -> list[dict[str, float]]:
    """For each sentence of one evidence text (its content-word stems ``own``, in order),
    the credit of each question term: 1 if the sentence says it, ``discount ** k`` if the
    k-th sentence before it does (k <= ``reach``, not past a heading), else absent."""
    out: list[dict[str, float]] = []
    for i, words in enumerate(own):
        credit = dict.fromkeys(asked & words, 1.0)
        if discount > 0 and not headings[i]:
            for k in range(1, reach + 1):
                if i - k < 0:
                    break
                for t in (asked & own[i - k]) - credit.keys():
                    credit[t] = discount ** k
                if headings[i - k]:
                    break  # the section starts at its heading
        out.append(credit)
    return out


def covered(credit: dict[str, float], asked: set[str],
            weight: Callable[[str], float] = lambda t: 1.0) -> float:
    """The (weighted) share of the question's terms a sentence covers, context included."""
    total = sum(weight(t) for t in asked)
    return sum(weight(t) * c for t, c in credit.items()) / total if total else 0.0


def is_heading(sentence: str) -> bool:
    """A title or a menu, not a statement: no closing punctuation, and mostly capitalised
    words ("Chapter 18: The Role of Government", "Creating Test Cases Tips ..."), or a long
    run of mostly capitalised terms (a menu of titles, "... Defining the Task Defining intent
    categories Example Data ..."). A list item ("b. Potentially multiple delta events") is kept."""
    if sentence.rstrip()[-1:] in TERMINAL + "]":
        return False
    words = sentence.split()
    if sum(w[:1].isupper() for w in words) >= 0.5 * len(words):
        return True
    terms = [w for w in words if w.lower() not in STOPWORDS]  # a menu of titles spares "of", "the"
    return len(terms) >= 8 and sum(w[:1].isupper() for w in terms) >= 0.6 * len(terms)
