"""Reading settings from outside: environment overrides, misspelt names, one-line errors.

Apart from settings.py so the model stays short; nothing here imports the model, the field
names are passed in.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import tomllib
from collections.abc import Iterable, Mapping

from pydantic import ValidationError

ENV_PREFIX = "LOCALCRAG_"


def env_name(field: str) -> str:
    """``top_k`` -> ``LOCALCRAG_TOP_K``."""
    return ENV_PREFIX + field.upper()


def env_overrides(
    fields: Iterable[str], environ: Mapping[str, str] | None = None
) -> dict[str, object]:
    """Every setting named as ``LOCALCRAG_<FIELD>`` in the environment, as a TOML value when it
    reads as one (``8``, ``0.6``, ``true``, ``"x"``), else as the plain string (``fusion``)."""
    environ = os.environ if environ is None else environ
    out: dict[str, object] = {}
    for field in fields:
        raw = environ.get(env_name(field))
        if raw is None or raw.strip() == "":
            continue
        out[field] = read_value(raw)
    return out


def read_value(raw: str) -> object:
    """What one typed value means: a TOML value when it reads as one, else the plain string."""
    try:
        return tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


def toml_value(value: object) -> str:
    """A value as written after ``name = `` on one TOML line (a table inline), so a line of
    ``localcrag config`` pastes into the file and the settings screen shows what it saves."""
    if isinstance(value, dict):
        keys = {
            k: k if re.fullmatch(r"[A-Za-z0-9_-]+", str(k)) else json.dumps(str(k)) for k in value
        }
        return "{" + ", ".join(f"{keys[k]} = {toml_value(v)}" for k, v in value.items()) + "}"
    import tomli_w

    return tomli_w.dumps({"v": value}).strip().removeprefix("v = ")


def check_names(raw: Mapping[str, object], known: Iterable[str]) -> None:
    """A misspelt setting ("topk") is an error naming the right one; a name that matches
    nothing (e.g. from another version) is ignored."""
    known = list(known)
    for key in raw:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
            if close:
                raise ValueError(f"unknown setting {key!r} (did you mean {close[0]!r}?)")


# Settings and values an older version wrote that this one no longer has: a file that still
# names them loads (one warning line), and the next save drops them.
OBSOLETE: dict[str, str] = {
    "scorer": "the query-likelihood grader it served was removed on 2026-12-01",
}
REMOVED_VALUES: dict[str, dict[str, str]] = {
    "grader": dict.fromkeys(
        ("cross", "align", "likelihood"),
        "removed on 2026-12-01 (fusion and reader measure better; docs/evaluator.md)",
    ),
}
_warned: set[tuple[str, tuple[str, ...]]] = set()


def drop_obsolete(raw: Mapping[str, object]) -> tuple[dict[str, object], list[str]]:
    """``raw`` without the settings and values this version no longer has (so their defaults
    apply), and one note per thing dropped."""
    out, notes = dict(raw), []
    for key, why in OBSOLETE.items():
        if key in out:
            del out[key]
            notes.append(f"{key!r} is no longer a setting ({why}): ignored")
    for key, gone in REMOVED_VALUES.items():
        value = out.get(key)
        if isinstance(value, str) and value in gone:
            del out[key]
            notes.append(f"{key} = {value!r} was {gone[value]}: the default is used")
    return out, notes


def warn_obsolete(path: object, notes: list[str]) -> None:
    """One warning line (once per process per file and notes) through logging: with no
    handler configured Python prints it on stderr, the app's trace shows it otherwise."""
    key = (str(path), tuple(notes))
    if notes and key not in _warned:
        _warned.add(key)
        logging.getLogger("localcrag.settings").warning(
            "localcrag: %s: %s (delete the line, or save the settings once)", path, "; ".join(notes)
        )


def one_line(exc: Exception) -> str:
    """pydantic's multi-line report as `name = value: reason; ...` (no URLs, no types)."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            name = ".".join(str(x) for x in err.get("loc", ()))
            parts.append(f"{name} = {err.get('input')!r}: {msg}" if name else msg)
        return "; ".join(parts)
    lines = str(exc).splitlines()
    return " ".join(lines[:3]) if lines else type(exc).__name__


REMOTE_SCHEMES = (
    "s3",
    "s3+ddb",
    "gs",
    "az",
)  # object stores LanceDB opens itself (lancedb.connect)
_SECRET_WORDS = ("secret", "access_key", "session_token", "token", "password", "account_key", "sas")


def check_index_uri(value: str | None) -> str | None:
    """``index_uri``: empty or a local folder (the data dir as before), or ``s3://bucket/prefix``."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    scheme = value.split("://", 1)[0].lower() if "://" in value else ""
    if scheme and scheme not in REMOTE_SCHEMES + ("file",):
        raise ValueError(
            f"unsupported scheme {scheme!r} (use s3://bucket/prefix, gs://, az:// or a folder)"
        )
    if scheme in REMOTE_SCHEMES and not value.split("://", 1)[1].split("/", 1)[0]:
        raise ValueError("no bucket name (write s3://bucket/prefix)")
    return value


def check_storage_options(value: dict | None) -> dict[str, str] | None:
    """``index_storage_options``: strings for LanceDB; credentials never come from the TOML file."""
    if not value:
        return None
    out: dict[str, str] = {}
    for key, v in value.items():
        if any(w in key.lower() for w in _SECRET_WORDS):
            raise ValueError(
                f"{key!r} is a credential: set it in the environment (e.g. AWS_ACCESS_KEY_ID, "
                "AWS_SECRET_ACCESS_KEY), never in the settings file"
            )
        out[str(key)] = str(v).lower() if isinstance(v, bool) else str(v)
    return out


# --- private files: config, history and the index are the user's alone, whatever the umask ---

PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def private_umask() -> None:
    """Clear group and other bits for everything this process creates, LanceDB's index files
    included (its Rust code creates them with 0666 minus the umask): 0700 folders, 0600 files
    under any umask (000 included)."""
    os.umask(os.umask(0o077) | 0o077)


def private_dir(path: os.PathLike[str] | str) -> None:
    """Create a folder of localcrag's (the data home, history) as 0700; one that exists keeps its mode."""
    from pathlib import Path

    p = Path(path)
    if not p.is_dir():
        p.mkdir(parents=True, exist_ok=True)
        os.chmod(p, PRIVATE_DIR)


def write_private(path: os.PathLike[str] | str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then a rename) as 0600."""
    tmp = f"{os.fspath(path)}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    try:
        os.fchmod(
            fd, PRIVATE_FILE
        )  # explicitly: os.open's mode is reduced by the umask, never raised
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fd = -1
            fh.write(text)
    finally:
        if fd >= 0:
            os.close(fd)
    os.replace(tmp, path)


def private_files(home: os.PathLike[str] | str) -> None:
    """At the start of the CLI and the app: the umask above, and the data home made 0700."""
    private_umask()
    try:
        private_dir(home)
    except OSError:  # a read-only or missing parent: the command that writes there says so
        pass
