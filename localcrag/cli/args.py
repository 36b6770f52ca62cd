"""What every subcommand shares (kept apart so command modules never import main): argument
types, the user's settings, and the backends the commands build from them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from localcrag.textutil import shown  # noqa: F401 - the commands import it from here

if TYPE_CHECKING:
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings


def _library(settings: Settings) -> Library:
    from localcrag.ingest.library import Library  # heavy: only when a command runs

    return Library(settings)


def _pipeline(settings: Settings) -> Pipeline:
    from localcrag.crag.pipeline import Pipeline

    return Pipeline(settings)


@dataclass(frozen=True)
class Backends:
    """What the commands build from the settings: the user's library and the pipeline over
    it. ``main(argv, Backends(...))`` hands a command other ones (a test's fakes); every
    command reads them from ``args.backends``."""

    library: Callable[[Settings], Library] = _library
    pipeline: Callable[[Settings], Pipeline] = _pipeline


def user_settings(offline: bool = False) -> Settings:
    """The user's settings; ``offline`` (a command's ``--offline``) turns the web off."""
    from localcrag.settings import Settings

    s = Settings.load()
    if offline:
        s.web.offline = True
    return s


def positive_int(text: str) -> int:
    """argparse type for -k and friends: 0 or less is a usage error, not a silent default."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


GENERATOR_HELP = (
    "chat model for this run: a GGUF file in models/ or the short name of a catalogue "
    "model already pulled (`localcrag models`); default: the generator setting"
)


def with_generator(settings, name: str | None):
    """``settings`` with ``--generator NAME`` applied (one-line error when it is not there)."""
    if not name:
        return settings
    from localcrag.llm.catalogue import local_model

    settings.models.generator = local_model(name, settings.models.models_dir)
    return settings


def add_scope_option(parser: argparse.ArgumentParser) -> None:
    """``--in PATH|GLOB`` (repeatable): search only these indexed documents."""
    parser.add_argument(
        "--in",
        dest="within",
        action="append",
        default=[],
        metavar="PATH|GLOB",
        help="search only these indexed documents: a file, a folder, a glob ('*.pdf', "
        "'reports/2019*') or a file name; repeat for several",
    )
