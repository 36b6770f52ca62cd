"""One text toolkit: words, stop words, closed word classes (lexicon), stems, sentences, source labels, refusals, and
text made safe to show on a terminal (and in Markdown).

Imports nothing from localcrag, so every layer (ingest, grading, rewriting, citations,
shaping, eval, the TUI) can use the same definitions instead of its own copy.
"""

from localcrag.textutil.labels import (
    document_named,
    label_pattern,
    locator,
    page_label,
    source_label,
)
from localcrag.textutil.lexicon import (
    ARTICLES,
    BE_FORMS,
    DO_FORMS,
    MONTH_NAMES,
    MONTHS,
    NUMBER_WORDS,
    PRONOUNS,
    WH_WORDS,
    number_words,
)
from localcrag.textutil.sentences import (
    STOP_RUN,
    TERMINAL,
    TERMINATORS,
    dehyphenate,
    ends_sentence,
    sentence_pieces,
    sentences,
    split_sentences,
)
from localcrag.textutil.stemmer import stem
from localcrag.textutil.terminal import (
    shown,
    terminal_safe,
    terminal_safe_fields,
    terminal_safe_prefix,
    unlinked,
    visible,
)
from localcrag.textutil.words import (
    NOT_STATED,
    STOPWORDS,
    WORD,
    base_form,
    content_words,
    holds,
    identifiers,
    is_refusal,
    states_nothing,
    stems,
    term_spans,
    terms,
    words,
)

__all__ = [
    "ARTICLES",
    "BE_FORMS",
    "DO_FORMS",
    "MONTH_NAMES",
    "MONTHS",
    "NUMBER_WORDS",
    "PRONOUNS",
    "WH_WORDS",
    "number_words",
    "NOT_STATED",
    "STOPWORDS",
    "TERMINAL",
    "STOP_RUN",
    "TERMINATORS",
    "WORD",
    "base_form",
    "content_words",
    "dehyphenate",
    "ends_sentence",
    "holds",
    "identifiers",
    "is_refusal",
    "label_pattern",
    "locator",
    "page_label",
    "sentence_pieces",
    "sentences",
    "shown",
    "source_label",
    "document_named",
    "split_sentences",
    "states_nothing",
    "stem",
    "stems",
    "term_spans",
    "terminal_safe",
    "terminal_safe_fields",
    "terminal_safe_prefix",
    "terms",
    "unlinked",
    "visible",
    "words",
]
