"""Porter stems, from PyStemmer (the Snowball project's C stemmers).

The original Porter algorithm ("porter", M. F. Porter 1980), the one the project's own
stemmer implemented (same stems on every word of the dev sets), not Snowball's later
"english" (Porter2), which measured the same on the dev sets but changes 7% of the words'
stems. Stems are what grounding, extraction, follow-up rewriting and the eval's
unsupported-words metric compare; word families meet on one stem ("retrieve"/"retrieval" ->
"retriev", "evaluator"/"evaluation" -> "evalu"). The graders use base forms instead
(:func:`localcrag.textutil.terms`).

Words of one or two letters are kept as they are, as Porter's own reference implementation
does ("is", "as", "us" stay; Snowball's algorithm alone would strip their "s").
"""

from __future__ import annotations

import threading
from functools import lru_cache

import Stemmer

_local = threading.local()  # a Stemmer keeps state while it stems: one per thread


def _stemmer() -> Stemmer.Stemmer:
    st = getattr(_local, "stemmer", None)
    if st is None:
        st = _local.stemmer = Stemmer.Stemmer("porter")
    return st


@lru_cache(maxsize=65536)  # pure; the grounding check stems the same evidence words per sentence
def stem(word: str) -> str:
    """The Porter stem of a lower-case word (words of one or two letters are kept)."""
    if len(word) <= 2:
        return word
    return str(_stemmer().stemWord(word))
