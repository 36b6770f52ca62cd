"""Argument types shared by every subcommand (kept apart so command modules never import main)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """argparse type for -k and friends: 0 or less is a usage error, not a silent default."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def shown(name: str) -> str:
    """A file name as one printable line: a newline or other control character in a name is
    printed escaped ("a\\nb"), so one entry never reads as two (JSON output keeps it exact)."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in name)


GENERATOR_HELP = ("chat model for this run: a GGUF file in models/ or the short name of a catalogue "
                  "model already pulled (`localcrag models`); default: the generator setting")


def with_generator(settings, name: str | None):
    """``settings`` with ``--generator NAME`` applied (one-line error when it is not there)."""
    if not name:
        return settings
    from localcrag.llm.catalogue import local_model

    settings.generator = local_model(name, settings.models_dir)
    return settings
