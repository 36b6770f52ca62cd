"""Offline is offline: with the offline setting on, an S3 index and a model server on
another machine configured, every command either works from this machine or says in one
line which setting needs the network and how to fix it; no command opens a socket,
resolves a name or hands LanceDB a remote URI (its Rust code would do both, out of
Python's sight)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from localcrag.cli.main import main

S3 = "s3://team-bucket/localcrag"
SERVER = "http://gpu-box.example:8080/v1"


@pytest.fixture()
def sealed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way out of the process raises (loopback too), and LanceDB refuses remote URIs."""
    attempts: list[str] = []

    def refuse(what: str):  # noqa: ANN202
        def blocked(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            attempts.append(f"{what}{args[1:2] if what.startswith('socket.') else args[:1]}")
            raise OSError(f"offline test: {what} called")

        return blocked

    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
        monkeypatch.setattr(socket, name, refuse(name))
    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, refuse(f"socket.{name}"))
    import lancedb

    real = lancedb.connect

    def connect(uri, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if "://" in str(uri) and not str(uri).startswith("file://"):
            attempts.append(f"lancedb.connect({uri})")
            raise OSError("offline test: LanceDB asked to open a remote index")
        return real(uri, *args, **kwargs)

    monkeypatch.setattr(lancedb, "connect", connect)
    return attempts


@pytest.fixture()
def configured(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    (isolated_home / "config.toml").write_text(
        f'offline = true\nindex_uri = "{S3}"\nllm_endpoint = "{SERVER}"\n'
        'index_storage_options = {region = "eu-west-1"}\n',
        encoding="utf-8",
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "robots.md").write_text("# Robots\n\nCobots work next to people in factories.\n")
    (tmp_path / "questions.jsonl").write_text(
        json.dumps({"question": "Where do cobots work?", "answer": "next to people"}) + "\n"
    )
    return tmp_path


# (argv, exit status, words the one line must hold); {d}: the folder of the fixture above
COMMANDS = [
    (["ingest", "{d}/docs"], 1, ("index_uri", "offline")),
    (["reindex"], 1, ("index_uri", "offline")),
    (["remove", "{d}/docs/robots.md"], 1, ("index_uri", "offline")),
    (["sources"], 1, ("index_uri", "offline")),
    (["search", "cobots"], 1, ("index_uri", "offline")),
    (["ask", "Where do cobots work?"], 1, ("llm_endpoint", "offline")),
    (["ask", "Where do cobots work?", "--offline", "--json"], 1, ("llm_endpoint", "offline")),
    (
        ["ask", "Where do cobots work?", "--offline", "--json", "--style", "extractive"],
        1,
        ("offline",),
    ),
    (["doctor"], 1, ("index_uri", "offline")),
    (["doctor", "--repair"], 1, ("index_uri", "offline")),
    (["watch", "{d}/docs"], 1, ("index_uri", "offline")),
    (["eval", "{d}", "--only", "answers", "--limit", "1"], 1, ("llm_endpoint", "offline")),
    (["models", "pull", "qwen2.5-0.5b"], 1, ("offline",)),
    (["models"], 0, ()),
    (["config"], 0, ()),
]


def test_the_commands_cover_the_cli() -> None:
    from localcrag.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == {argv[0] for argv, _, _ in COMMANDS}


@pytest.mark.parametrize("argv, status, words", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_offline_opens_no_socket(
    argv: list[str],
    status: int,
    words: tuple[str, ...],
    configured: Path,
    sealed: list[str],
    capsys: pytest.CaptureFixture,
) -> None:
    assert main([a.format(d=configured) for a in argv]) == status
    out = capsys.readouterr()
    assert sealed == [], sealed
    assert "Traceback" not in out.err
    if status:
        lines = [line for line in out.err.splitlines() if line.strip()]
        assert len(lines) == 1, out.err
        assert all(w in lines[0] for w in words), lines[0]


def test_the_refusal_names_the_fix(
    configured: Path, sealed: list[str], capsys: pytest.CaptureFixture
) -> None:
    assert main(["sources"]) == 1
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"localcrag: offline: index_uri = {S3} is on object storage")
    assert "unset index_uri" in line and "turn offline off" in line
