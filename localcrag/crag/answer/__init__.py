"""Answer writing: from the graded evidence the loop kept to the text the user reads.

The contract. The loop (``crag/pipeline.py``) hands this package the question and the kept
evidence, each unit with its chunk id; ``stage.answer_events`` yields the answer's events
(the style chosen, tokens, ``AnswerDone``). Every answer is checked here before it is shown:
``constraints`` reads what the question asks and constrains, ``binding`` binds those
constraints to one evidence unit and its context, or says what is missing and what was
found; a quote (``extract``, with ``cells`` and ``glossary`` for table cells and definitions,
``emphasis`` and ``shapes`` for the answer-shaped span) quotes that unit, and generated text
(``generate``, ``shaping``) keeps only sentences ``grounding`` and ``citations`` can tie to the
evidence. ``style`` and ``capability`` decide between quoting and generating. The package
never imports the loop's steps (retrieve, grade, decide, refine, rewrite, web): the loop
calls it, and import-linter's contract keeps it so.
"""
