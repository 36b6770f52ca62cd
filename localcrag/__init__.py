"""localcrag: offline-first Corrective RAG over your own documents.

The package root is the headless core; it never imports textual (the TUI lives in
``localcrag.tui``) and keeps heavy libraries out of import time so ``--help`` is instant.
"""

__version__ = "0.1.0"
