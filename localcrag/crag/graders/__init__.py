"""Retrieval evaluator internals; the public entry point is :mod:`localcrag.crag.grade`.

* ``text``: content terms, corpus statistics (IDF, background sample), coverage.
* ``features``: the signals computed from the embedder and the text.
* ``cues``: contradiction cues (negation scope, numbers, antonyms) for near misses.
* ``base``: the ``Grader`` protocol, logistic calibrations, per-chunk error recovery.
* ``fast``: lexical, embedding and fusion graders.
* ``reader``: the trained reader (answer containment and answer span) over int8 ONNX.
* ``llm``: the yes/no grader over a GGUF model.
* ``factories``: one builder per registry entry (``localcrag.registry.GRADERS``).
"""
