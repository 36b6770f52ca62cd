"""Air-gapped evaluation: CRAG against standard RAG, retrieval, and the retrieval evaluator.

``localcrag eval DATASET`` (see ``localcrag.cli.eval``); the core is ``runner.run_eval``,
which returns one JSON-ready dict and never prints.
"""
