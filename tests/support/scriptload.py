"""Import a file of scripts/ as a module, for the tests of the fitting and probe scripts."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.support import REPO


def load_script(name: str) -> ModuleType:
    """scripts/NAME.py, with scripts/ on the path (they import each other)."""
    sys.path.insert(0, str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
