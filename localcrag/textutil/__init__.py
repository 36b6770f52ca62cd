"""One text toolkit: words, stop words, stems, sentences, source labels, refusals.

Imports nothing from localcrag, so every layer (ingest, grading, rewriting, citations,
shaping, eval, the TUI) can use the same definitions instead of its own copy.
"""

from localcrag.textutil.labels import label_pattern, locator, page_label, source_label
from localcrag.textutil.porter import stem
from localcrag.textutil.sentences import (
    TERMINAL,
    TERMINATORS,
    dehyphenate,
    ends_sentence,
    sentence_pieces,
    sentences,
    split_sentences,
)
from localcrag.textutil.words import (
    STOPWORDS,
    WORD,
    base_form,
    content_words,
    holds,
    identifiers,
    is_refusal,
    stems,
    term_spans,
    terms,
    words,
)

__all__ = [
    "STOPWORDS", "TERMINAL", "TERMINATORS", "WORD", "base_form", "content_words", "dehyphenate",
    "ends_sentence", "holds", "identifiers",
    "is_refusal", "label_pattern", "locator", "page_label", "sentence_pieces", "sentences", "source_label",
    "split_sentences", "stem", "stems", "term_spans", "terms", "words",
]
