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
