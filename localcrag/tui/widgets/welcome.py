"""The text the chat shows before the first question: what to do next, given the library's state."""

from __future__ import annotations

from localcrag.ingest.formats import supported_text
from localcrag.tui.host import AppHost
from localcrag.tui.widgets.labels import plural


def welcome_markdown(app: AppHost) -> str:
    """Markdown for an empty conversation (the app's reactives say what state we are in)."""
    if not app.library_ready:
        return "## Welcome to localcrag\n\nOpening your library…"
    if app.library_error:
        return (
            f"## The library could not be opened\n\n{app.library_error}\n\n"
            "Check the models in Settings (**ctrl+s**), or run `make models`."
        )
    previous = len(app.previous_sources)
    if not app.sources and previous:
        return (
            f"## Your documents need re-indexing\n\n{previous} document{'s were' if previous != 1 else ' was'} "
            "indexed with other settings (embedder or chunking), so the current index is empty.\n\n"
            "* Press **ctrl+l** to open the Library, then **ctrl+r** to re-index "
            f"{'them' if previous != 1 else 'it'} with the current settings.\n"
            "* Or change the settings back (**ctrl+s**).\n\n**F1** lists every key."
        )
    if not app.sources:
        return (
            "## Welcome to localcrag\n\nYour library is empty, so there is nothing to ask about yet.\n\n"
            "* Press **ctrl+g** to index localcrag's own documentation (README and docs/) as a "
            "demo, then ask e.g. *What does the retrieval evaluator decide?*\n"
            "* Or press **ctrl+l** to open the Library and add your own files or folders "
            f"({supported_text()}).\n\nEverything runs on this machine; **F1** lists every key."
        )
    n = len(app.sources)
    if app.demo_active:
        return (
            f"## Ask about the {plural(n, 'demo document')}\n\n"
            "localcrag's own README and docs/ sit in an index of their own. Try *What does the "
            "retrieval evaluator decide?* Add your own files with **ctrl+l**: from then on only "
            "they are searched. **F1** lists every key."
        )
    return (
        f"## Ask about your {plural(n, 'document')}\n\n"
        "Type a question below and press **Enter**. The answer cites passages as [n]: "
        "select one (click, or **ctrl+r** then Enter) to read it. The CRAG trace on the right "
        "shows what was retrieved, how it was graded and what was decided. **F1** lists every key."
    )
